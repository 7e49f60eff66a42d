import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { startDaemon } from '../../helpers/daemon.js';
import { janusBin, janusMissing } from '../../helpers/janus.js';
import { until } from '../../helpers/net.js';
import { killIfStill } from '../../helpers/slow-client.js';
import { startMedia, type MediaConfig } from '../../../src/daemon/media-choice.js';

const base = (dataDir: string): MediaConfig => ({
  dataDir,
  media: 'auto',
  janusBin,
  janusUrl: null,
  janusUrls: null,
  janusApiSecret: null,
  janusRoomAdminKey: null,
  rtpPorts: { min: 43_200, max: 43_300 },
  publicIp: null,
  janusPublishers: 10,
  mediaPrivatePeers: false,
});

function recordingLog() {
  const lines: { level: string; msg: string; obj: object }[] = [];
  const at = (level: string) => (obj: object, msg: string) => lines.push({ level, msg, obj });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}

t.test('mesh runs no Janus', async (t) => {
  const choice = await startMedia({ ...base(t.testdir()), media: 'mesh' }, recordingLog().log);
  t.equal(choice.kind, 'mesh');
  t.equal(choice.readiness, null, '/readyz does not mention Janus');
});

t.test('auto without a Janus falls back to the mesh and says so; janus refuses to start', async (t) => {
  const { lines, log } = recordingLog();
  const config = { ...base(t.testdir()), janusBin: '/nonexistent/janus' };
  const choice = await startMedia(config, log);
  t.equal(choice.kind, 'mesh');
  t.match(lines, [{ level: 'warn', msg: /Janus is not available: meetings use the browser-to-browser mesh/ }]);
  await t.rejects(
    startMedia({ ...config, media: 'janus' }, log),
    /SERVICE_MEDIA=janus but Janus is not available: Janus could not be started/,
  );
  await t.rejects(
    startMedia({ ...config, media: 'janus', janusUrl: 'http://127.0.0.1:1/janus' }, log),
    /SERVICE_JANUS_URL needs SERVICE_JANUS_API_SECRET and SERVICE_JANUS_ROOM_ADMIN_KEY/,
  );
});

t.test(
  'the daemon with SERVICE_MEDIA=janus runs its own Janus, reports it in /readyz and stops it',
  { skip: janusMissing ?? false },
  async (t) => {
    const daemon = await startDaemon({ env: { SERVICE_MEDIA: 'janus', SERVICE_RTP_PORTS: '43400-43500' } });
    t.teardown(() => {
      if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    });
    const ready = await fetch(`${daemon.url}/readyz`);
    t.equal(ready.status, 200);
    t.match(await ready.json(), { status: 'ready', checks: { janus: 'ok' } });
    const children = () => {
      try {
        return execFileSync('pgrep', ['-P', String(daemon.child.pid)], { encoding: 'utf8' })
          .trim()
          .split('\n')
          .filter(Boolean);
      } catch {
        return [];
      }
    };
    const janusPid = Number(children()[0]);
    t.ok(janusPid > 0, "Janus runs as the daemon's child");
    t.match(execFileSync('ps', ['-o', 'args=', '-p', String(janusPid)], { encoding: 'utf8' }), /janus -F .*\/janus -C/);
    t.notOk(daemon.lines.join('\n').match(/apisecret|api_secret|admin_key/i), 'no Janus secret in the log');
    // Issue 29 point 16: pino puts the daemon's "pid" on every line; Janus's is its own key, not a second "pid".
    const onePid = (msg: string) => {
      const line = daemon.lines.find((l) => l.includes(`"msg":"${msg}"`));
      t.equal(line?.match(/"pid":/g)?.length, 1, `${msg}: one "pid" key`);
      t.match(
        JSON.parse(line ?? '{}'),
        { pid: daemon.child.pid, janusPid: Number(children()[0]) },
        `${msg}: the daemon's pid and Janus's`,
      );
    };
    onePid('meetings use the Janus SFU');

    process.kill(janusPid, 'SIGKILL');
    await until(
      '/readyz to say janus is failing',
      async () => (await (await fetch(`${daemon.url}/readyz`)).json()).checks?.janus === 'failing',
      5000,
      20,
    ).catch(() => {
      // The restart may already be done: then it must be ok again (below).
    });
    await until(
      '/readyz to be ready again',
      async () => (await fetch(`${daemon.url}/readyz`)).status === 200,
      15_000,
      100,
    );
    t.ok(
      daemon.lines.some((l) => l.includes('janus exited; restarting it')),
      'the crash is logged',
    );
    const restarted = Number(children()[0]);
    t.not(restarted, janusPid, 'a new Janus');
    // /readyz may turn ready a moment before the line that says so is read from the daemon's stdout.
    await until(
      'the "janus is up again" line',
      async () => daemon.lines.some((l) => l.includes('"msg":"janus is up again"')),
      5000,
      20,
    );
    onePid('janus is up again');

    daemon.child.kill('SIGTERM');
    t.equal(await daemon.exited, 0);
    t.throws(() => process.kill(restarted, 0), 'Janus stopped with the daemon');
  },
);

t.test('a daemon killed with SIGKILL takes its Janus with it', { skip: janusMissing ?? false }, async (t) => {
  const daemon = await startDaemon({ env: { SERVICE_MEDIA: 'janus', SERVICE_RTP_PORTS: '43500-43600' } });
  t.teardown(() => {
    if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
  });
  const janusPid = Number(
    execFileSync('pgrep', ['-P', String(daemon.child.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
  t.ok(janusPid > 0, "Janus runs as the daemon's child");
  // Gone already, as it should be; a pid taken since by another process is left alone.
  t.teardown(() => {
    killIfStill(janusPid, 'janus');
  });
  daemon.child.kill('SIGKILL');
  t.equal(await daemon.exited, 'SIGKILL');
  const alive = () => {
    try {
      process.kill(janusPid, 0);
      // A zombie is gone too: it only waits for a parent that no longer exists to reap it.
      return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${janusPid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  await until('Janus to be gone', async () => !alive(), 5000, 50);
  t.pass('no Janus left behind');
});
