import t from 'tap';
import { Readiness } from '../../../../src/engine/health/readiness.js';

function fakeClock(start = 0) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

t.test('ready only when every check that applies is ok', async (t) => {
  const clock = fakeClock();
  let listening = true;
  const readiness = new Readiness(
    [
      { name: 'database', check: () => true },
      { name: 'engine_listener', check: () => listening },
      { name: 'compat_listener', check: () => null },
    ],
    clock,
  );
  t.same(
    await readiness.report(),
    { ready: true, checks: { database: 'ok', engine_listener: 'ok' } },
    'a check that does not apply is left out',
  );
  listening = false;
  t.same(await readiness.report(), { ready: false, checks: { database: 'ok', engine_listener: 'failing' } });
});

t.test('a throwing check is failing; its error goes to onFailure, never into the report', async (t) => {
  const failures: [string, unknown][] = [];
  const readiness = new Readiness(
    [
      {
        name: 'database',
        check: () => {
          throw new Error('SQLITE_BUSY: database is locked at /var/lib/meet/meet.sqlite');
        },
      },
    ],
    fakeClock(),
    (name, err) => failures.push([name, err]),
  );
  const report = await readiness.report();
  t.same(report, { ready: false, checks: { database: 'failing' } });
  t.notMatch(JSON.stringify(report), /SQLITE|\/var\/lib/, 'no detail in what an anonymous caller reads');
  t.equal(failures.length, 1);
  t.match(String(failures[0]![1]), /SQLITE_BUSY/);
});

t.test('an expensive check runs at most once per reuse period, failures included', async (t) => {
  const clock = fakeClock();
  let runs = 0;
  let ok = true;
  const readiness = new Readiness([{ name: 'database', check: () => (runs++, ok), reuseMs: 1000 }], clock);
  await Promise.all(Array.from({ length: 100 }, () => readiness.report()));
  t.equal(runs, 1, '100 reports, one probe');
  ok = false;
  clock.advance(999);
  t.same((await readiness.report()).checks, { database: 'ok' }, 'the answer is kept for the period');
  clock.advance(1);
  t.same((await readiness.report()).checks, { database: 'failing' }, 'then probed again');
  t.equal(runs, 2);
  ok = true;
  t.same(
    (await readiness.report()).checks,
    { database: 'failing' },
    'a failure is kept too (a flood cannot hammer a sick disk)',
  );
  clock.advance(1000);
  t.same(await readiness.report(), { ready: true, checks: { database: 'ok' } });
});
