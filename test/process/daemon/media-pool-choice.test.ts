// Issue 35 point 6: SERVICE_JANUS_URLS at start. None answering: janus refuses to start (exit 69,
// naming the setting), auto starts on the mesh and says so. Some answering: the daemon uses the
// pool, registers every server in the store, and marks the silent one dead, so no meeting is placed
// there until it answers.
import t from 'tap';
import { EnvironmentError } from '../../../src/config/environment-error.js';
import { startMedia, type MediaConfig } from '../../../src/daemon/media-choice.js';
import { janusBin, janusFor, janusMissing } from '../../helpers/janus.js';
import { MemoryMediaServers } from '../../helpers/memory-media-servers.js';

const secrets = { apiSecret: 'pool-api-secret-012345', roomAdminKey: 'pool-admin-key-0123456' };

const base = (dataDir: string, urls: string[]): MediaConfig => ({
  dataDir,
  media: 'auto',
  janusBin,
  janusUrl: null,
  janusUrls: urls,
  janusApiSecret: secrets.apiSecret,
  janusRoomAdminKey: secrets.roomAdminKey,
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

const silent = ['http://127.0.0.1:1/janus', 'http://127.0.0.1:2/janus'];

t.test('no server of the list answers: janus refuses to start, auto uses the mesh', async (t) => {
  const { lines, log } = recordingLog();
  const refused = await startMedia({ ...base(t.testdir(), silent), media: 'janus' }, log).catch((err: unknown) => err);
  t.type(refused, EnvironmentError);
  t.match(
    String(refused),
    /SERVICE_MEDIA=janus but Janus is not available: none of the 2 Janus servers of SERVICE_JANUS_URLS answers/,
  );
  t.notMatch(String(refused), secrets.apiSecret);
  const choice = await startMedia(base(t.testdir(), silent), log);
  t.equal(choice.kind, 'mesh');
  t.match(lines, [{ level: 'warn', msg: /Janus is not available: meetings use the browser-to-browser mesh/ }]);
});

t.test(
  'a pool with one silent server: used, every server registered, the silent one dead',
  { skip: janusMissing ?? false },
  async (t) => {
    const { janus } = await janusFor(t, 44_800, secrets);
    const { log } = recordingLog();
    const choice = await startMedia({ ...base(t.testdir(), [janus.endpoint.url, silent[0]!]), media: 'janus' }, log);
    t.teardown(() => choice.close());
    t.equal(choice.kind, 'janus');
    t.equal(choice.process, null, 'no Janus of its own');
    t.equal(choice.readiness?.check(), true, 'ready while one server answers');
    const store = new MemoryMediaServers((meetingId) => meetingId !== 'ended-while-its-node-died');
    await store.register([janus.endpoint.url]);
    await store.place('ended-while-its-node-died', (live) => live[0]!.url, null);
    await choice.useStore?.(store);
    t.equal(
      await store.serverOf('ended-while-its-node-died'),
      null,
      'a placement whose meeting ended unseen is released at start',
    );
    const servers = await store.servers();
    t.same(
      servers.map((s) => [s.url, s.downSince === null]),
      [
        [janus.endpoint.url, true],
        [silent[0], false],
      ].sort(),
      'both registered; the silent one dead',
    );
    t.equal(
      await store.place('m1', (live) => live[live.length - 1]!.url, null),
      janus.endpoint.url,
      'only the live one is offered',
    );
  },
);
