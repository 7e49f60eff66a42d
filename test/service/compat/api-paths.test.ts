// Issue 12, point 1, against a real daemon: the API answers under the upstream path
// /bigbluebutton/api/ as under /confapi/api/ (the root and every call, one checksum rule: the
// call name is signed, never the path), and a Moodle-style signer, which trims the configured
// URL with PHP's character-set rtrim before appending /api/, reaches it.
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import { calls } from '../../../src/compat/confapi/routes.js';
import { assertFailed, assertSuccess, ConfapiClient, fetchAnswer, sign } from '../../helpers/compat.js';

const secret = 'paths-secret-0123456789abcdef';
const paths = ['/confapi/api', '/bigbluebutton/api'] as const;

/** PHP's rtrim($text, $chars): strips any trailing run of the characters in `chars` (a set, not a suffix). */
function phpRtrim(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}

/** Moodle's API base from the configured server URL: trailing `/` off, rtrim('/api'), then `/api/`. */
function moodleApiBase(configured: string): string {
  return `${phpRtrim(phpRtrim(configured, '/'), '/api')}/api/`;
}

t.test('rtrim with a character set, as Moodle applies it', async (t) => {
  t.equal(moodleApiBase('http://h:8088/confapi/'), 'http://h:8088/conf/api/', '…/confapi/ loses its "api" too');
  t.equal(moodleApiBase('http://h:8088/confapi/api'), 'http://h:8088/conf/api/', '…/confapi/api as well');
  t.equal(
    moodleApiBase('http://h:8088/bigbluebutton/'),
    'http://h:8088/bigbluebutton/api/',
    '…/bigbluebutton/ survives',
  );
  t.equal(
    moodleApiBase('http://h:8088/bigbluebutton/api/'),
    'http://h:8088/bigbluebutton/api/',
    '…/bigbluebutton/api/ too',
  );
});

t.test('both paths: the root and every call', async (t) => {
  const d = await compatAppFor(t, {
    env: { COMPAT_API_SHARED_SECRET: secret, COMPAT_FRONTEND_URL: 'http://front.example' },
  });

  for (const path of paths) {
    t.test(path, async (t) => {
      for (const root of [path, `${path}/`]) {
        const answer = await fetchAnswer(`${d.compatUrl}${root}`);
        assertSuccess(t, answer, `${root} (version, no checksum)`);
        t.equal(answer.xml?.version, '2.0', `${root}: version 2.0`);
      }

      // Canvas signs sorted, SHA-1; the path is the only difference between the two runs.
      const api = new ConfapiClient(d.compatUrl, secret, 'sha1', 'sorted', path);
      const meetingID = `m ${path.split('/')[1]}`;
      const seen = new Set<string>();
      const check = async (
        call: string,
        pairs: [string, string][],
        expect: (answer: Awaited<ReturnType<typeof api.get>>) => void,
      ) => {
        seen.add(call);
        expect(await api.get(call, pairs));
      };
      let moderatorPW = '';
      await check('create', [['meetingID', meetingID]], (a) => {
        assertSuccess(t, a, `${path}: create`);
        moderatorPW = a.xml?.moderatorPW ?? '';
      });
      await check(
        'join',
        [
          ['meetingID', meetingID],
          ['fullName', 'Ann'],
          ['role', 'VIEWER'],
        ],
        (a) => t.equal(a.status, 302, `${path}: join redirects`),
      );
      await check('isMeetingRunning', [['meetingID', meetingID]], (a) =>
        t.equal(a.xml?.running, 'false', `${path}: isMeetingRunning`),
      );
      await check('getMeetingInfo', [['meetingID', meetingID]], (a) =>
        t.equal(a.xml?.meetingID, meetingID, `${path}: getMeetingInfo`),
      );
      await check('getMeetings', [], (a) => assertSuccess(t, a, `${path}: getMeetings`));
      await check(
        'sendChatMessage',
        [
          ['meetingID', meetingID],
          ['message', 'hi'],
        ],
        (a) => assertSuccess(t, a, `${path}: sendChatMessage`),
      );
      await check('getRecordings', [['meetingID', meetingID]], (a) =>
        t.equal(a.xml?.messageKey, 'noRecordings', `${path}: getRecordings`),
      );
      await check(
        'publishRecordings',
        [
          ['recordID', 'r1'],
          ['publish', 'true'],
        ],
        (a) => assertFailed(t, a, 'notFound', `${path}: publishRecordings`),
      );
      await check('updateRecordings', [['recordID', 'r1']], (a) =>
        assertFailed(t, a, 'notFound', `${path}: updateRecordings`),
      );
      await check('deleteRecordings', [['recordID', 'r1']], (a) =>
        assertFailed(t, a, 'notFound', `${path}: deleteRecordings`),
      );
      seen.add('learningDashboard');
      const dashboard = await injectFetch(api.url('learningDashboard', [['meetingID', meetingID]]));
      t.equal(
        ((await dashboard.json()) as { response: { returncode: string } }).response.returncode,
        'SUCCESS',
        `${path}: learningDashboard`,
      );
      // Issue 33 point 7: answered in JSON, as upstream (getJoinUrl refuses a session token it did not sign).
      for (const [call, pairs] of [
        ['getJoinUrl', [['sessionToken', 'ai1wqj8wb6s7rnk0']]],
        ['getRecordingTextTracks', [['recordID', 'r1']]],
        ['putRecordingTextTrack', [['recordID', 'r1']]],
      ] as const) {
        seen.add(call);
        const answer = await injectFetch(api.url(call, pairs));
        t.equal(
          ((await answer.json()) as { response: { returncode: string } }).response.returncode,
          'FAILED',
          `${path}: ${call} in JSON`,
        );
      }
      await check(
        'end',
        [
          ['meetingID', meetingID],
          ['password', moderatorPW],
        ],
        (a) => assertSuccess(t, a, `${path}: end`),
      );
      t.same([...seen].sort(), Object.keys(calls).sort(), `${path}: every call was tried`);

      assertFailed(
        t,
        await api.get('signOut'),
        'unsupportedRequest',
        `${path}: an unsupported call is the API's answer`,
      );
      assertFailed(
        t,
        await api.with({ secret: 'not-the-secret' }).get('getMeetings'),
        'checksumError',
        `${path}: a wrong secret`,
      );
    });
  }

  t.test('the path is not signed: one URL signed for getMeetings works under either path', async (t) => {
    const query = 'x=1';
    const signed = `getMeetings?${query}&checksum=${sign('getMeetings', query, secret)}`;
    for (const path of paths) assertSuccess(t, await fetchAnswer(`${d.compatUrl}${path}/${signed}`), path);
  });

  // The Ruby gem builds endpoint + '/' + call; Greenlight keeps an endpoint that ends in `api/` as it is.
  t.test('the Ruby gem (Greenlight) with an endpoint ending in a slash: two slashes before the call', async (t) => {
    for (const endpoint of [`${d.compatUrl}/bigbluebutton/api/`, `${d.compatUrl}/confapi/api/`]) {
      const query = 'meetingID=gl-room&name=Greenlight';
      const answer = await fetchAnswer(`${endpoint}/create?${query}&checksum=${sign('create', query, secret)}`);
      t.equal(answer.xml?.returncode, 'SUCCESS', `${endpoint}/create (${answer.status} ${answer.text.slice(0, 80)})`);
    }
  });

  t.test('a Moodle-style signer reaches the API when given …/bigbluebutton/', async (t) => {
    for (const configured of [`${d.compatUrl}/bigbluebutton/`, `${d.compatUrl}/bigbluebutton/api`]) {
      const base = moodleApiBase(configured);
      // Moodle's probe: the root with a checksum of the secret alone (the root needs none).
      const probe = await fetchAnswer(`${base}?&checksum=${sign('', '', secret)}`);
      t.equal(probe.xml?.version, '2.0', `${configured}: the version probe`);
      const query = new URLSearchParams([
        ['meetingID', 'abc-1-2[3]'],
        ['name', 'Moodle room'],
        ['moderatorPW', 'mp'],
        ['attendeePW', 'ap'],
      ]).toString();
      assertSuccess(
        t,
        await fetchAnswer(`${base}create?${query}&checksum=${sign('create', query, secret)}`),
        `${configured}: create`,
      );
      const info = `meetingID=${encodeURIComponent('abc-1-2[3]')}`;
      const answer = await fetchAnswer(
        `${base}getMeetingInfo?${info}&checksum=${sign('getMeetingInfo', info, secret)}`,
      );
      t.equal(answer.xml?.meetingName, 'Moodle room', `${configured}: getMeetingInfo`);
    }
  });
});
