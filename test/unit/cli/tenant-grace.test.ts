// Issue 29 point 11, the command: `meetctl tenant rotate` keeps the replaced secret working
// for a grace (--grace, default 24 h, 0 ends it at once) written as a time into the tenants
// file; `tenant show` lists it with its end; `rotate --finish` ends it early.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import {
  assertMode,
  assertNoSecret,
  generated,
  moodleSecret,
  sample,
  schoolAppSecret,
  setup,
  tenant,
} from '../../helpers/tenants.js';

const hour = 3_600_000;
const moodleBlock = (text: string) => text.slice(text.indexOf('[tenants.moodle]'), text.indexOf('# the embedding app'));

t.test('rotate keeps the old secret for 24 h by default; show lists it with its end; --finish ends it', async (t) => {
  const s = setup(t);
  const before = Date.now();
  const rotated = await tenant(s, ['rotate', 'moodle']);
  t.equal(rotated.code, 0, rotated.stderr);
  const fresh = generated(rotated.stdout).api_secret!;
  s.secrets.add(fresh);
  t.match(
    rotated.stderr,
    /The old value keeps working until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/,
    'stderr says until when',
  );
  t.match(rotated.stderr, /meetctl tenant rotate moodle --finish/, 'and how to end it early');
  assertNoSecret(t, s, rotated.stderr, 'rotate stderr');
  const text = readFileSync(s.file, 'utf8');
  t.equal(
    moodleBlock(text).split('\n').slice(0, 2).join('\n'),
    `[tenants.moodle]   # the LMS\napi_secret = "${fresh}"   # from Moodle's settings`,
    "the header's and the key's comments stay",
  );
  t.ok(text.endsWith(sample.slice(sample.indexOf('# the embedding app'))), 'the other tenant is kept byte for byte');
  assertMode(t, s.file, 'after rotate');
  const moodle = parseRegistry(text, null).byId.get('moodle')!;
  t.equal(moodle.previousApiSecret?.secret, moodleSecret, 'the replaced secret is kept as previous_api_secret');
  const until = moodle.previousApiSecret!.until;
  t.ok(
    until >= before + 24 * hour && until <= Date.now() + 24 * hour + 1000,
    `its end is 24 h from now (${new Date(until).toISOString()})`,
  );

  const shown = await tenant(s, ['show', 'moodle']);
  t.equal(shown.code, 0, shown.stderr);
  t.match(
    shown.stdout,
    new RegExp(`previous_api_secret\\s+\\*\\*\\* valid until ${new Date(until).toISOString().replace('.000Z', 'Z')}`),
    'show lists it with its end',
  );
  assertNoSecret(t, s, shown.stdout, 'show');
  const json = JSON.parse((await tenant(s, ['show', 'moodle', '--json'])).stdout);
  t.same(
    json.previous_api_secret,
    { value: '***', until: new Date(until).toISOString().replace('.000Z', 'Z'), active: true },
    'show --json: masked, its end',
  );
  t.equal(
    JSON.parse((await tenant(s, ['show', 'moodle', '--json', '--reveal'])).stdout).previous_api_secret.value,
    moodleSecret,
    '--reveal shows it',
  );

  const listed = await tenant(s, ['list']);
  t.equal(listed.code, 0, listed.stderr);
  t.match(
    listed.stdout,
    /^ID\s+SOURCE\s+API SECRET\s+APP ID\s+APP SECRET\s+AUTH GUEST\s+REPLACED SECRET\n/,
    'list has a column for the replaced secret',
  );
  const untilText = new Date(until).toISOString().replace('.000Z', 'Z');
  t.match(
    listed.stdout,
    new RegExp(`moodle\\s+tenants file\\s+\\*\\*\\*\\s+-\\s+-\\s+inherited\\s+api_secret valid until ${untilText}\n`),
    'list names the end of its grace',
  );
  t.match(listed.stdout, /school\s+tenants file\s+-\s+school-app\s+\*\*\*\s+-\s+-\n/, 'a tenant without one shows -');
  assertNoSecret(t, s, listed.stdout, 'list');
  const listedJson = JSON.parse((await tenant(s, ['list', '--json'])).stdout) as {
    id: string;
    previous_api_secret?: unknown;
  }[];
  t.same(
    listedJson.find((v) => v.id === 'moodle')?.previous_api_secret,
    { value: '***', until: untilText, active: true },
    'list --json: masked, its end',
  );
  t.notOk(
    'previous_api_secret' in listedJson.find((v) => v.id === 'school')!,
    'none for a tenant that was not rotated',
  );

  const again = await tenant(s, ['rotate', 'moodle', '--grace', '1h']);
  t.equal(again.code, 0, again.stderr);
  const third = generated(again.stdout).api_secret!;
  s.secrets.add(third);
  t.match(
    again.stderr,
    /warning: the api_secret an earlier rotation replaced was still in its grace; it stops working now/,
  );
  const second = parseRegistry(readFileSync(s.file, 'utf8'), null).byId.get('moodle')!;
  t.equal(second.apiSecret, third);
  t.equal(second.previousApiSecret?.secret, fresh, 'the secret of the first rotation is now the previous one');
  t.ok(Math.abs(second.previousApiSecret!.until - (Date.now() + hour)) < 2000, '--grace 1h: an hour from now');
  t.equal(
    (readFileSync(s.file, 'utf8').match(/previous_api_secret/g) ?? []).length,
    2,
    'one previous secret and its end, not two',
  );

  const finished = await tenant(s, ['rotate', 'moodle', '--finish']);
  t.equal(finished.code, 0, finished.stderr);
  t.match(finished.stderr, /the replaced api_secret stops working within a second/);
  const after = parseRegistry(readFileSync(s.file, 'utf8'), null).byId.get('moodle')!;
  t.same(
    [after.apiSecret, after.previousApiSecret],
    [third, undefined],
    '--finish: the new secret alone, no new one made',
  );
  t.notMatch(readFileSync(s.file, 'utf8'), /previous_/, 'the lines are gone');
  t.equal((await tenant(s, ['rotate', 'moodle', '--finish'])).code, 1, 'nothing left to finish: refused');
});

t.test('--grace 0 ends the old secret at once; the app secret has its own grace', async (t) => {
  const s = setup(t);
  const now = await tenant(s, ['rotate', 'moodle', '--grace', '0']);
  t.equal(now.code, 0, now.stderr);
  t.match(now.stderr, /The old value stops working within a second/);
  t.notMatch(readFileSync(s.file, 'utf8'), /previous_/, 'no previous secret written');

  const app = await tenant(s, ['rotate', 'school', '--app', '--grace', '90s']);
  t.equal(app.code, 0, app.stderr);
  const school = parseRegistry(readFileSync(s.file, 'utf8'), null).byId.get('school')!;
  t.equal(school.previousAppSecret?.secret, schoolAppSecret);
  t.ok(Math.abs(school.previousAppSecret!.until - (Date.now() + 90_000)) < 2000, '--grace 90s');
  t.match((await tenant(s, ['show', 'school'])).stdout, /previous_app_secret\s+\*\*\* valid until/);
});

t.test('bad --grace values and --finish with --grace are usage errors; nothing is written', async (t) => {
  const s = setup(t);
  for (const args of [
    ['--grace', '5x'],
    ['--grace', '31d'],
    ['--grace', '-1h'],
    ['--grace', ''],
    ['--finish', '--grace', '1h'],
  ]) {
    const result = await tenant(s, ['rotate', 'moodle', ...args]);
    t.equal(result.code, 64, `${args.join(' ')}: exit 64`);
    t.match(result.stderr, /--grace|--finish/, 'naming the flag');
  }
  t.equal((await tenant(s, ['rotate', 'moodle', '--finish'])).code, 1, '--finish without a previous secret: refused');
  t.equal(readFileSync(s.file, 'utf8'), sample, 'nothing written');
});
