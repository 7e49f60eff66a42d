// Issue 33 point 7: a join's session_token is taken back by getJoinUrl (upstream 2.7+: a new link
// for the same person) and by learningDashboard (a moderator's); forged, altered, foreign and
// stale tokens are refused in JSON with upstream's keys and messages (UserSessionConstraint:
// missingToken "You must provide a session token", sessionMissing "Invalid session token";
// ApiController: "Access denied", "Meeting not found", "Join URL provided successfully.").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import { assertSuccess, claimsOf, ConfapiClient, roomAndToken, startWithToken } from '../../helpers/compat.js';

const secret = 'session-token-secret-5a1c0e77';
const otherSecret = 'other-tenant-secret-0123456789abcdefgh';

async function json(api: ConfapiClient, call: string, pairs: [string, string][]) {
  const response = await injectFetch(api.url(call, pairs));
  const type = response.headers.get('content-type') ?? '';
  return { type, body: (await response.json()) as { response: Record<string, any> } };
}

t.test('getJoinUrl and learningDashboard by sessionToken', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-session-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  writeFileSync(file, `[tenants.other]\napi_secret = "${otherSecret}"\n`);
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret, SERVICE_TENANTS_FILE: file } });
  const api = new ConfapiClient(d.compatUrl, secret);
  const other = new ConfapiClient(d.compatUrl, otherSecret);
  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'm'],
      ['attendeePW', 'ap'],
      ['moderatorPW', 'mp'],
    ]),
    'create',
  );
  const joinAs = async (password: string, name: string, extra: [string, string][] = []) => {
    const answer = await api.get('join', [
      ['meetingID', 'm'],
      ['fullName', name],
      ['password', password],
      ['redirect', 'false'],
      ...extra,
    ]);
    assertSuccess(t, answer, `join ${name}`);
    return answer.xml as Record<string, string>;
  };
  const teacher = await joinAs('mp', 'Teacher');
  const viewer = await joinAs('ap', 'Vera Viewer', [
    ['userID', 'lms-42'],
    ['avatarURL', 'https://lms.example/a.png'],
  ]);
  const first = roomAndToken(teacher.url!);
  t.match((await startWithToken(d, first.roomId, first.token, 'Teacher')).body, { status: 'joined' });

  t.test('getJoinUrl: a new link for the same person, in JSON', async (t) => {
    const answer = await json(api, 'getJoinUrl', [['sessionToken', viewer.session_token!]]);
    t.match(answer.type, /^application\/json/);
    t.same(Object.keys(answer.body.response), ['returncode', 'message', 'url'], "upstream's element order");
    t.match(answer.body.response, { returncode: 'SUCCESS', message: 'Join URL provided successfully.', url: String });
    const link = roomAndToken(answer.body.response.url);
    t.equal(link.roomId, first.roomId, 'into the same room');
    t.match(
      claimsOf(link.token),
      { role: 'participant', source: 'lms', name: 'Vera Viewer', uid: 'lms-42', avatar: 'https://lms.example/a.png' },
      'as the join made her',
    );
    t.match((await startWithToken(d, link.roomId, link.token, 'Vera Viewer')).body, {
      status: 'joined',
      role: 'participant',
    });
  });

  t.test('learningDashboard by a moderator session token', async (t) => {
    const answer = await json(api, 'learningDashboard', [['sessionToken', teacher.session_token!]]);
    t.match(answer.type, /^application\/json/);
    t.equal(answer.body.response.returncode, 'SUCCESS');
    t.equal(answer.body.response.sessionToken, teacher.session_token, 'the answer repeats it, as upstream');
    const data = JSON.parse(answer.body.response.data) as { extId: string; users: Record<string, unknown> };
    t.equal(data.extId, 'm');
    t.equal(Object.keys(data.users).length, 2, 'both who entered');
    const byMeeting = await json(api, 'learningDashboard', [['meetingID', 'm']]);
    t.equal(byMeeting.body.response.returncode, 'SUCCESS', 'by meetingID still answers');
    const refused = await json(api, 'learningDashboard', [['sessionToken', viewer.session_token!]]);
    t.same(refused.body.response, { returncode: 'FAILED', messageKey: 'accessDenied', message: 'Access denied' });
  });

  t.test('forged, altered, foreign and absent tokens are refused', async (t) => {
    const [header, payload, signature] = viewer.session_token!.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const promoted = Buffer.from(JSON.stringify({ ...claims, role: 'moderator' })).toString('base64url');
    const cases: [string, ConfapiClient, [string, string][]][] = [
      ['a viewer made moderator (signature kept)', api, [['sessionToken', `${header}.${promoted}.${signature}`]]],
      [
        'unsigned (alg none)',
        api,
        [
          [
            'sessionToken',
            `${Buffer.from('{"alg":"none","typ":"confapi-session+jwt"}').toString('base64url')}.${payload}.`,
          ],
        ],
      ],
      ['random text', api, [['sessionToken', 'ai1wqj8wb6s7rnk0']]],
      ['over-long', api, [['sessionToken', `${header}.${'a'.repeat(5000)}.${signature}`]]],
      ["another tenant's call with this tenant's token", other, [['sessionToken', teacher.session_token!]]],
    ];
    for (const [what, client, pairs] of cases) {
      for (const call of ['getJoinUrl', 'learningDashboard']) {
        if (call === 'learningDashboard' && pairs.length === 0) continue;
        const answer = await json(client, call, pairs);
        t.match(answer.type, /^application\/json/, `${call}, ${what}: JSON`);
        t.same(
          answer.body.response,
          { returncode: 'FAILED', messageKey: 'sessionMissing', message: 'Invalid session token' },
          `${call}, ${what}: sessionMissing`,
        );
      }
    }
    for (const pairs of [[], [['sessionToken', '']]] as [string, string][][])
      t.same(
        (await json(api, 'getJoinUrl', pairs)).body.response,
        { returncode: 'FAILED', messageKey: 'missingToken', message: 'You must provide a session token' },
        `absent (${pairs.length} pairs): missingToken, the message names the session token`,
      );
  });

  // Issue 33 point 8: the join's userdata-* come back as the attendee's <customdata>, as upstream.
  t.test('customdata: the userdata-* of a join, on her attendee entry', async (t) => {
    const joined = await joinAs('ap', 'Cora Custom', [
      ['userdata-bbb_custom_style', 'a<b>&c'],
      ['userdata-role_in_course', 'student'],
    ]);
    t.match(joined.user_id, /^w_[a-z0-9]{12}$/, 'without a userID, the internal user id keys it');
    const link = roomAndToken(joined.url!);
    t.match((await startWithToken(d, link.roomId, link.token, 'Cora Custom')).body, { status: 'joined' });
    const info = await api.get('getMeetingInfo', [['meetingID', 'm']]);
    assertSuccess(t, info, 'getMeetingInfo');
    const attendees = ([] as Record<string, any>[]).concat(info.xml.attendees.attendee);
    const cora = attendees.find((a) => a.fullName === 'Cora Custom');
    t.same(cora?.customdata, { bbb_custom_style: 'a<b>&c', role_in_course: 'student' }, 'echoed, as text');
    t.match(info.text, /<customdata>\s*<bbb_custom_style>a&lt;b&gt;&amp;c<\/bbb_custom_style>/, 'escaped in the XML');
    t.notOk(attendees.find((a) => a.fullName === 'Teacher')?.customdata, 'none where the join sent none');
    const listed = await api.get('getMeetings');
    t.match(JSON.stringify(listed.xml), /role_in_course/, 'getMeetings too');

    const refusals: [string, [string, string][], RegExp][] = [
      ['an over-long value', [['userdata-note', 'x'.repeat(1025)]], /userdata-note must be at most 1024/],
      ['a name that is no element', [['userdata-<script>', 'x']], /userdata-<script>: the name after userdata-/],
      ['an empty name', [['userdata-', 'x']], /the name after userdata-/],
      ['too many', Array.from({ length: 33 }, (_, i): [string, string] => [`userdata-k${i}`, 'v']), /at most 32/],
    ];
    for (const [what, pairs, message] of refusals) {
      const answer = await api.get('join', [
        ['meetingID', 'm'],
        ['fullName', 'Mallory'],
        ['password', 'ap'],
        ['redirect', 'false'],
        ...pairs,
      ]);
      t.equal(answer.xml.messageKey, 'validationError', `${what}: validationError`);
      t.match(answer.xml.message, message, `${what}: the message names the parameter`);
    }
  });

  t.test('after the end, no new link', async (t) => {
    assertSuccess(
      t,
      await api.get('end', [
        ['meetingID', 'm'],
        ['password', 'mp'],
      ]),
      'end',
    );
    const answer = await json(api, 'getJoinUrl', [['sessionToken', viewer.session_token!]]);
    t.same(answer.body.response, { returncode: 'FAILED', messageKey: 'notFound', message: 'Meeting not found' });
  });
});
