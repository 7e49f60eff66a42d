import t from 'tap';
import { call, dataDirFor, logRecords, rooms } from '../../helpers/api.js';
import { logMatch } from '../../helpers/compat.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { until } from '../../helpers/net.js';
import { accessLines, summaries, summaryOf } from '../../helpers/access-log-lines.js';
import { asSession, Browser, createRoom, moderator, waitingApi } from '../../helpers/waiting.js';

// Issue 15, point 1: a line per request only where an operator needs one, a summary a minute
// for the rest. The daemon runs in the test's process (the same start, listeners and logger as
// `meetctl serve`); where its standard output and error are read, or its data directory must fill
// up in a namespace of its own, it is its own process: access-log-process.test.ts.

t.test('the default policy: polls are counted, not logged; refusals, state changes and the summary are', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), {
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_REQUEST_SUMMARY_SECS: '1',
    SERVICE_MEETING_EMPTY_GRACE_SECS: '0',
  });
  await createRoom(t, d, { room_id: 'busy', name: 'Busy', waiting_room: 'all' });
  const mod = await moderator(d, 'busy');
  const guests = [new Browser(d, 'busy'), new Browser(d, 'busy'), new Browser(d, 'busy')];
  for (const [i, guest] of guests.entries()) t.equal((await guest.knock({ name: `Guest Person ${i}` })).status, 202);
  const polls = 30;
  for (let i = 0; i < polls; i++) t.equal((await guests[i % 3]!.poll()).status, 200);
  const lost = new Browser(d, 'busy');
  for (let i = 0; i < 4; i++) t.equal((await lost.poll()).status, 404, 'a poll that lost its cookie');
  t.equal((await call(d, '/api/rooms/missing')).status, 404, 'an unexpected refusal');

  const list = (await waitingApi.list(d, 'busy')).body as { request_id: string; name: string }[];
  const ids = list.map((item) => item.request_id);
  t.equal((await asSession.admit(d, 'busy', mod.session, { request_id: ids[0] })).status, 200);
  t.equal((await waitingApi.refuse(d, 'busy', ids[1]!, false)).status, 200);
  t.equal((await asSession.refuse(d, 'busy', mod.session, { request_id: ids[2], bar: true })).status, 200);

  const figures = await summaryOf(d, 'room.waiting', polls + 4);
  t.equal(figures.count, polls + 4, 'the summary counts every poll');
  t.equal(figures['4xx'], 4, 'the lost-cookie polls among them');
  t.same(accessLines(d, 'room.waiting'), [], 'and not one poll has a line of its own');
  const summary = summaries(d).find(
    (line) => (line.families as Record<string, unknown>)['room.waiting'] !== undefined,
  )!;
  t.match(summary, { level: 30, windowSecs: Number, requests: Number }, 'the summary line at info');
  t.match((summary.families as Record<string, unknown>)['room.waiting'], {
    n: Number,
    p50: Number,
    p95: Number,
    p99: Number,
    max: Number,
  });

  const refused = accessLines(d, 'api.rooms').filter((line) => line.status === 404);
  t.equal(refused.length, 1, 'the unexpected 404 has one line');
  t.match(refused[0], {
    msg: 'request refused',
    level: 30,
    route: '/api/rooms/:id',
    req: { method: 'GET', url: '/api/rooms/missing' },
  });
  // A line is written once its answer went out: the client may read the answer first.
  await logMatch(d, /"event":"bar"/);
  const events = logRecords(d).filter((line) => typeof line.event === 'string');
  t.same(
    events.filter((e) => e.event === 'knock').map((e) => [e.room, e.status]),
    [
      ['busy', 202],
      ['busy', 202],
      ['busy', 202],
    ],
    'one line per knock',
  );
  t.ok(
    events.every((e) => e.event !== 'knock' || typeof e.request === 'string'),
    'each knock names its request id',
  );
  t.match(
    events.find((e) => e.event === 'admit'),
    { room: 'busy', request: ids[0], admitted: 1, by: mod.participantId, level: 30 },
  );
  t.match(
    events.find((e) => e.event === 'refuse'),
    { room: 'busy', request: ids[1] },
  );
  t.match(
    events.find((e) => e.event === 'bar'),
    { room: 'busy', request: ids[2] },
  );
  t.ok(
    events.some((e) => e.event === 'create' && e.room === 'busy'),
    'the room creation',
  );
  t.notOk(
    d.lines.some((line) => line.includes('Guest Person')),
    'no name in any line',
  );

  // The meeting ends once everyone left (grace 0, the sweep ends it): one line, ids only.
  await asSession.leave(d, 'busy', mod.session);
  await asSession.leave(d, 'busy', (await guests[0]!.poll()).body.session);
  await logMatch(d, /"event":"end"/, 10_000);
  t.match(
    logRecords(d).filter((line) => line.event === 'end'),
    [{ level: 30, msg: 'end', room: 'busy', meeting: String }],
    'one line for the end',
  );
  t.notOk(
    d.lines.some((line) => /incoming request|request completed/.test(line)),
    "none of Fastify's own request lines",
  );
});

t.test(
  'SERVICE_ACCESS_LOG=all: exactly one line per request; SERVICE_SLOW_REQUEST_MS=0: every request is slow',
  async (t) => {
    for (const [env, msg, level] of [
      [{ SERVICE_ACCESS_LOG: 'all' }, 'request', 30],
      [{ SERVICE_SLOW_REQUEST_MS: '0' }, 'slow request', 40],
    ] as const) {
      await t.test(`${JSON.stringify(env)}`, async (t) => {
        const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_LOG_LEVEL: 'info', ...env });
        await rooms.create(d, { room_id: 'each', name: 'Each', waiting_room: 'all' });
        const guest = new Browser(d, 'each');
        await guest.knock({ name: 'Polly' });
        for (let i = 0; i < 12; i++) await guest.request('GET', `/waiting?poll=${i}`);
        await until('a line for each poll', async () => accessLines(d, 'room.waiting').length >= 12, 10_000, 50);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const lines = accessLines(d, 'room.waiting');
        t.equal(lines.length, 12, 'twelve polls, twelve lines');
        t.same(
          lines.map((line) => (line.req as { url: string }).url),
          Array.from({ length: 12 }, (_, i) => `/room/each/waiting?poll=${i}`),
          'one each, in order',
        );
        t.ok(
          lines.every(
            (line) => line.msg === msg && line.level === level && line.status === 200 && typeof line.ms === 'number',
          ),
          `each: ${msg}, status and ms`,
        );
        // The request's logger is made lazily (platform/request-logger.ts): its lines still name their request.
        const ids = lines.map((line) => line.reqId);
        t.ok(
          ids.every((id) => typeof id === 'string' && id !== ''),
          'each line carries its request id',
        );
        t.equal(new Set(ids).size, 12, 'a different id for each request');
      });
    }
  },
);
