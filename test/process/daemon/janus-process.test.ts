import { readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { JanusProcess } from '../../../src/daemon/janus-process.js';
import { janusInfo } from '../../../src/media/janus/janus-session.js';
import { JanusRooms } from '../../../src/media/janus/janus-rooms.js';
import { onlyServer } from '../../../src/media/janus/janus-pool.js';
import { janusFor, janusMissing } from '../../helpers/janus.js';
import { until } from '../../helpers/net.js';

const skip = janusMissing ?? false;
let n = 0;
const randomText = () => `text-${String(n++).padStart(12, '0')}`;

t.test('a killed Janus is restarted and the rooms of meetings in progress are made again', { skip }, async (t) => {
  const { janus, lines } = await janusFor(t, 42_300);
  const configDir = path.dirname(readFileSync('/proc/' + String(janus.pid) + '/cmdline', 'utf8').split('\0')[2] ?? '');
  t.equal(statSync(configDir).mode & 0o777, 0o700, 'the generated configuration (secrets) is private');
  const rooms = new JanusRooms({
    endpoint: () => janus.endpoint,
    adminKey: janus.roomAdminKey,
    publishers: 30,
    randomText,
    log: { warn: () => {} },
  });
  t.teardown(() => rooms.close());
  const before = await rooms.ensure('meeting-a');
  await rooms.ensure('meeting-b');
  await rooms.destroy('meeting-b');
  t.ok(await rooms.exists('meeting-a'));
  let restarted = 0;
  janus.onRestarted(() => {
    restarted += 1;
    void rooms.rebuild(onlyServer);
  });

  const oldPid = janus.pid;
  process.kill(oldPid ?? 0, 'SIGKILL');
  await until('the supervisor to notice', async () => janus.state === 'restarting', 5000, 20);
  await until('janus to be up again', async () => janus.state === 'up', 10_000, 50);
  t.not(janus.pid, oldPid, 'a new process');
  t.equal(restarted, 1);
  t.ok(
    lines.some((l) => l.level === 'error' && l.msg === 'janus exited; restarting it'),
    'the crash is logged',
  );
  t.notOk(JSON.stringify(lines).includes(janus.endpoint.apiSecret), 'the API secret is never logged');
  await until('the room to exist again', async () => rooms.exists('meeting-a').catch(() => false), 5000, 50);
  t.same(rooms.spec('meeting-a'), before, 'with the same secret and pin');
  t.same(rooms.meetings, ['meeting-a'], 'an ended meeting is not brought back');
});

t.test('stop ends Janus and it is not restarted', { skip }, async (t) => {
  const { janus } = await janusFor(t, 42_600);
  const endpoint = janus.endpoint;
  await janus.stop();
  t.equal(janus.state, 'stopped');
  await new Promise((resolve) => setTimeout(resolve, 800));
  await t.rejects(janusInfo({ ...endpoint, timeoutMs: 500 }), 'nothing answers');
  t.equal(janus.state, 'stopped');
});

t.test('a missing or failing program is a clear start error, and nothing is left running', async (t) => {
  const log = { info: () => {}, warn: () => {}, error: () => {} };
  const dir = t.testdir();
  const missing = new JanusProcess({
    bin: path.join(dir, 'no-janus'),
    configDir: path.join(dir, 'a'),
    rtpPorts: { min: 40000, max: 40010 },
    publicIp: null,
    log,
  });
  await t.rejects(missing.start(), /Janus could not be started/);
  t.equal(missing.state, 'stopped');
  const failing = new JanusProcess({
    bin: '/bin/false',
    configDir: path.join(dir, 'b'),
    rtpPorts: { min: 40000, max: 40010 },
    publicIp: null,
    log,
  });
  await t.rejects(failing.start(), /Janus exited while starting/);
  t.equal(failing.state, 'stopped');
});

// Issue 36 point 5: one media thread per CPU, shared by every handle, rather than a thread per
// viewer (bench/README.md, sfu: Janus's CPU per packet delivered halved).
t.test('the Janus it runs shares one event loop per CPU among its handles', { skip }, async (t) => {
  const { janus } = await janusFor(t, 44_200);
  const args = readFileSync('/proc/' + String(janus.pid) + '/cmdline', 'utf8').split('\0');
  const configDir = args[args.indexOf('-F') + 1] ?? '';
  t.match(readFileSync(path.join(configDir, 'janus.jcfg'), 'utf8'), `event_loops = ${availableParallelism()}\n`);
  const answer = await fetch(janus.endpoint.url, {
    method: 'POST',
    body: JSON.stringify({ janus: 'info', transaction: 'loops', apisecret: janus.endpoint.apiSecret }),
  });
  const info = (await answer.json()) as Record<string, unknown>;
  t.equal(info['static-event-loops'], availableParallelism(), 'Janus reports the loops it started');
});
