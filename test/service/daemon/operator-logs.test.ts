// Issue 29, point 16: what an operator reads in the log. The start says once, at info, the URL
// to open; a meeting-API join gets its line (ids and choices, never the name, the password or
// the platform's user id); a meeting's end names its tenant. The daemon is started from the env
// file `meetctl install compat` wrote, as systemd starts it, in the test's process (run.ts's
// start and its log, real sockets and SQLite). (The Janus
// start line's single "pid" is checked with a real Janus in media-choice.test.ts.)
import t from 'tap';
import { call, logRecords } from '../../helpers/api.js';
import { ConfapiClient, logMatch } from '../../helpers/compat.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { world } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';

const openLines = (d: { lines: string[] }) => logRecords(d).filter((r) => 'openUrl' in r);

t.test(
  'an installed service: the URL to open once, joins logged without names or passwords, the end with its tenant',
  async (t) => {
    const w = world(t);
    const installed = await w.install(['--key', await testServerKey(), '--no-open-rooms']);
    t.equal(installed.code, 0, installed.stderr);
    const fromFile = w.envFile();
    const secret = fromFile.COMPAT_API_SHARED_SECRET!;
    // The public address an operator sets; only the ports are moved off the shared 3000/8088.
    const env = {
      ...w.env,
      ...fromFile,
      COMPAT_FRONTEND_URL: 'https://meet.example.org',
      SERVICE_MEDIA: 'mesh',
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      COMPAT_HTTP_ADDR: '127.0.0.1:0',
    };
    const d = await inProcessDaemonFor(t, fromFile.SERVICE_DATA_DIR!, env);
    const compatUrl = (await logMatch(d, /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/))[1]!;

    t.match(
      openLines(d),
      [
        {
          level: 30,
          openUrl: 'https://meet.example.org',
          msg: /ready: rooms open at https:\/\/meet\.example\.org\/room\//,
        },
      ],
      'one line says where rooms open',
    );

    const api = new ConfapiClient(compatUrl, secret);
    const moderatorPw = 'moderator-password-of-the-log-test';
    const created = await api.get('create', [
      ['meetingID', 'course-101'],
      ['name', 'Course'],
      ['moderatorPW', moderatorPw],
      ['attendeePW', 'attendee-password-of-the-log-test'],
    ]);
    t.equal(created.xml.returncode, 'SUCCESS');
    const joinUrl = api.url('join', [
      ['meetingID', 'course-101'],
      ['fullName', 'Ada Lovelace-Byron'],
      ['password', moderatorPw],
      ['userID', 'platform-user-4711'],
    ]);
    const joined = await fetch(joinUrl, { redirect: 'manual' });
    t.equal(joined.status, 302, 'join redirects');
    const room = new URL(joined.headers.get('location')!).pathname.split('/')[2]!;
    t.match(joined.headers.get('location'), /^https:\/\/meet\.example\.org\/room\//, 'to the public address');

    await logMatch(d, /"event":"join"/);
    const create = logRecords(d).find((r) => r.event === 'create');
    const tenant = create?.tenant;
    t.type(tenant, 'string', 'create names its tenant');
    t.match(
      logRecords(d).filter((r) => r.event === 'join'),
      [
        {
          level: 30,
          msg: 'join',
          family: 'confapi.join',
          tenant,
          room,
          role: 'moderator',
          guest: false,
          guestStatus: 'ALLOW',
        },
      ],
      'one line for the join: tenant, room and role',
    );

    // She arrives with the join link: the engine meeting starts, so `end` has one to end.
    const location = new URL(joined.headers.get('location')!);
    const started = await call(d, `/room/${room}/start`, {
      method: 'POST',
      json: { name: 'Ada', t: location.searchParams.get('t') },
      token: null,
    });
    t.equal(started.status, 200, 'the moderator entered');
    const ended = await api.get('end', [
      ['meetingID', 'course-101'],
      ['password', moderatorPw],
    ]);
    t.equal(ended.xml.returncode, 'SUCCESS');
    await logMatch(d, /"event":"end"/);
    t.match(
      logRecords(d).filter((r) => r.event === 'end'),
      [{ level: 30, msg: 'end', room, meeting: String, tenant }],
      'the end names its tenant',
    );
    t.equal(openLines(d).length, 1, 'the URL to open was said once');
    const out = d.lines.join('\n');
    for (const [what, value] of [
      ['the full name', 'Ada Lovelace'],
      ['the full name as the URL has it', 'Ada+Lovelace'],
      ["the platform's user id", 'platform-user-4711'],
      ['the moderator password', moderatorPw],
      ['the shared secret', secret],
    ] as const) {
      t.notOk(out.includes(value), `${what} is not in the log`);
    }
  },
);

t.test('without a public address: the engine listener, a wildcard host shown as localhost', async (t) => {
  const d = await inProcessDaemonFor(t, t.testdir(), { SERVICE_HTTP_ADDR: '0.0.0.0:0' });
  const port = new URL(d.url).port;
  t.match(openLines(d), [{ level: 30, openUrl: `http://localhost:${port}` }], 'a URL a browser on this machine opens');
});
