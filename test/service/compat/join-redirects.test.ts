// Issue 33 point 6 in the meeting API: a join's own logoutURL wins over the create's (Moodle's
// guest links set it per join), only http(s) is kept; and with errorRedirectUrl a browser join
// the meeting refuses is redirected there with errors=[{"key","message"}], as upstream, instead
// of XML shown to a person. A refusal with a bad checksum stays XML (no bounce for unsigned links).
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { assertFailed, ConfapiClient, fetchAnswer } from '../../helpers/compat.js';

const secret = 'join-redirects-secret-0123456789';
const platform = 'https://lms.example.org/course/view.php?id=7';
const errors = 'https://lms.example.org/bbb/error.php';

t.test('logoutURL per join, and errorRedirectUrl', async (t) => {
  const d = await compatAppFor(t, {
    env: { COMPAT_API_SHARED_SECRET: secret, COMPAT_FRONTEND_URL: 'http://front.example:8080' },
  });
  const api = new ConfapiClient(d.compatUrl, secret, 'sha256');
  await api.get('create', [
    ['meetingID', 'course-7'],
    ['logoutURL', platform],
  ]);
  const joinWith = (more: [string, string][]) =>
    api.get('join', [['meetingID', 'course-7'], ['fullName', 'Pupil Pia'], ['role', 'VIEWER'], ...more]);
  const logoutOf = (location: string | null) => new URL(location ?? 'http://x').searchParams.get('logoutURL');

  await t.test("the join link carries the join's own logoutURL, else the create's", async (t) => {
    const own = await joinWith([['logoutURL', 'https://lms.example.org/guest/bye']]);
    t.equal(own.status, 302);
    t.equal(logoutOf(own.headers.get('location')), 'https://lms.example.org/guest/bye', "the join's own wins");
    const plain = await joinWith([]);
    t.equal(logoutOf(plain.headers.get('location')), platform, "without one, the create's");
    const odd = await joinWith([['logoutURL', 'javascript:alert(1)']]);
    t.equal(logoutOf(odd.headers.get('location')), platform, 'a join logoutURL that is not http(s) is ignored');
    const xml = await joinWith([
      ['logoutURL', 'https://lms.example.org/guest/bye'],
      ['redirect', 'false'],
    ]);
    t.equal(logoutOf(String(xml.xml.url)), 'https://lms.example.org/guest/bye', 'the XML answer too');
  });

  await t.test('a refused browser join goes to errorRedirectUrl with the errors', async (t) => {
    const refused = await api.get('join', [
      ['meetingID', 'no-such-meeting'],
      ['fullName', 'Pupil Pia'],
      ['role', 'VIEWER'],
      ['errorRedirectUrl', `${errors}?course=7`],
    ]);
    t.equal(refused.status, 302, 'a redirect, not XML');
    const to = new URL(refused.headers.get('location') ?? '');
    t.equal(`${to.origin}${to.pathname}`, errors);
    t.equal(to.searchParams.get('course'), '7', "the URL's own query is kept");
    t.same(JSON.parse(to.searchParams.get('errors') ?? 'null'), [
      { key: 'invalidMeetingIdentifier', message: 'A meeting with that ID does not exist' },
    ]);
    const noName = await api.get('join', [
      ['meetingID', 'course-7'],
      ['fullName', ''],
      ['role', 'VIEWER'],
      ['errorRedirectUrl', errors],
    ]);
    t.match(JSON.parse(new URL(noName.headers.get('location') ?? '').searchParams.get('errors') ?? '[]'), [
      { key: 'missingParamFullName' },
    ]);
  });

  await t.test('a guest refused by ALWAYS_DENY goes to errorRedirectUrl too, else sees our page', async (t) => {
    await api.get('create', [
      ['meetingID', 'closed-7'],
      ['guestPolicy', 'ALWAYS_DENY'],
    ]);
    const guest: [string, string][] = [
      ['meetingID', 'closed-7'],
      ['fullName', 'Guest Gus'],
      ['role', 'VIEWER'],
      ['guest', 'true'],
    ];
    const denied = await api.get('join', [...guest, ['errorRedirectUrl', errors]]);
    t.equal(denied.status, 302, 'a redirect, not our page');
    const to = new URL(denied.headers.get('location') ?? '');
    t.equal(`${to.origin}${to.pathname}`, errors);
    t.same(JSON.parse(to.searchParams.get('errors') ?? 'null'), [
      {
        key: 'guestDeniedAccess',
        message: "You have been denied access to this meeting based on the meeting's guest policy",
      },
    ]);
    const page = await api.get('join', [...guest, ['errorRedirectUrl', 'javascript:alert(1)']]);
    t.equal(page.status, 403, 'without an http(s) errorRedirectUrl, our page');
  });

  await t.test('XML stays where no person is sent: redirect=false, another scheme, a bad checksum', async (t) => {
    const refusal = [
      ['meetingID', 'no-such-meeting'],
      ['fullName', 'Pupil Pia'],
      ['role', 'VIEWER'],
    ] as [string, string][];
    assertFailed(
      t,
      await api.get('join', [...refusal, ['errorRedirectUrl', errors], ['redirect', 'false']]),
      'invalidMeetingIdentifier',
      'redirect=false',
    );
    assertFailed(
      t,
      await api.get('join', [...refusal, ['errorRedirectUrl', 'javascript:alert(1)']]),
      'invalidMeetingIdentifier',
      'not http(s)',
    );
    const unsigned = api.url('join', [...refusal, ['errorRedirectUrl', errors]]).replace(/checksum=\w+/, 'checksum=00');
    assertFailed(t, await fetchAnswer(unsigned), 'checksumError', 'a bad checksum');
  });
});
