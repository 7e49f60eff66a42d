// Issue 12, points 3 and 4, against a real daemon: create without passwords generates two
// different ones and answers them; joining with the generated moderator password makes a
// moderator (getMeetingInfo), the attendee one a viewer; join with redirect=false carries
// auth_token and session_token in upstream order, new ones for every join.
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import {
  assertFailed,
  assertSuccess,
  attendeesOf,
  claimsOf,
  ConfapiClient,
  roomAndToken,
  startWithToken,
} from '../../helpers/compat.js';

const secret = 'join-answer-secret-0123456789';

/** Top-level element names of a `<response>`, in order. */
function elementOrder(text: string): string[] {
  return [...text.matchAll(/^<([A-Za-z_][\w.-]*)>/gm)].map((m) => m[1]!).filter((name) => name !== 'response');
}

t.test('generated passwords and join tokens', async (t) => {
  const d = await compatAppFor(t, {
    env: { COMPAT_API_SHARED_SECRET: secret, COMPAT_FRONTEND_URL: 'http://front.example' },
  });
  const api = new ConfapiClient(d.compatUrl, secret, 'sha1', 'sorted');

  const created = await api.get('create', [
    ['meetingID', 'no-passwords'],
    ['name', 'Greenlight room'],
  ]);
  assertSuccess(t, created, 'create without passwords');
  const { attendeePW, moderatorPW } = created.xml as { attendeePW: string; moderatorPW: string };

  t.test('create answers two generated passwords, different, and keeps them', async (t) => {
    t.match(attendeePW, /^[a-z2-7]{12}$/, 'attendeePW: 12 base32 characters');
    t.match(moderatorPW, /^[a-z2-7]{12}$/, 'moderatorPW: 12 base32 characters');
    t.not(attendeePW, moderatorPW, 'the two differ');
    const again = await api.get('create', [['meetingID', 'no-passwords']]);
    t.equal(again.xml?.messageKey, 'duplicateWarning');
    t.same(
      [again.xml?.attendeePW, again.xml?.moderatorPW],
      [attendeePW, moderatorPW],
      'a duplicate create answers the same ones',
    );
    const other = await api.get('create', [
      ['meetingID', 'other'],
      ['attendeePW', 'given-ap'],
    ]);
    t.equal(other.xml?.attendeePW, 'given-ap', 'a given password is kept');
    t.match(other.xml?.moderatorPW, /^[a-z2-7]{12}$/, 'the missing one is generated');
    t.not(other.xml?.moderatorPW, moderatorPW, 'another meeting, another password');
  });

  let roomId = '';
  t.test('the generated moderator password makes a moderator, the attendee one a viewer', async (t) => {
    for (const [name, password, role, shown] of [
      ['Mod Erator', moderatorPW, 'moderator', 'MODERATOR'],
      ['Vi Ewer', attendeePW, 'participant', 'VIEWER'],
    ] as const) {
      const joined = await api.get('join', [
        ['meetingID', 'no-passwords'],
        ['fullName', name],
        ['password', password],
      ]);
      t.equal(joined.status, 302, `${name}: redirected`);
      const link = roomAndToken(joined.headers.get('location') ?? '');
      roomId = link.roomId;
      t.match(claimsOf(link.token), { role }, `${name}: token role ${role}`);
      t.match(
        (await startWithToken(d, link.roomId, link.token, name)).body,
        { status: 'joined', role },
        `${name}: enters as ${role}`,
      );
      const info = await api.get('getMeetingInfo', [['meetingID', 'no-passwords']]);
      t.match(
        attendeesOf(info.xml).find((a) => a.fullName === name),
        { role: shown },
        `${name}: ${shown} in getMeetingInfo`,
      );
    }
    t.ok(roomId !== '');
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'no-passwords'],
        ['fullName', 'Nobody'],
      ]),
      'invalidPassword',
      'neither role nor password',
    );
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'no-passwords'],
        ['fullName', 'Nobody'],
        ['password', ''],
      ]),
      'invalidPassword',
      'an empty password',
    );
  });

  t.test('join with redirect=false: the upstream elements in order, fresh tokens each time', async (t) => {
    const pairs: [string, string][] = [
      ['meetingID', 'no-passwords'],
      ['fullName', 'Api User'],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ];
    const first = await api.get('join', pairs);
    const second = await api.get('join', pairs);
    assertSuccess(t, first, 'first join');
    t.same(
      elementOrder(first.text),
      [
        'returncode',
        'messageKey',
        'message',
        'meeting_id',
        'user_id',
        'auth_token',
        'session_token',
        'guestStatus',
        'url',
      ],
      'upstream order',
    );
    for (const answer of [first, second]) {
      t.match(answer.xml.auth_token, /^[A-Za-z0-9_-]{22}$/, 'auth_token: 128 bits, base64url');
      // Issue 33 point 7: signed, so getJoinUrl and learningDashboard can take it back.
      t.match(
        answer.xml.session_token,
        /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/,
        'session_token: a signed JWT, base64url',
      );
      t.not(answer.xml.auth_token, answer.xml.session_token, 'two different values');
      const url = new URL(answer.xml.url as string);
      t.equal(url.searchParams.get('sessionToken'), answer.xml.session_token, 'the URL carries its session_token');
      t.ok(url.searchParams.get('t'), 'and the join token that admits');
    }
    t.not(first.xml.auth_token, second.xml.auth_token, 'two joins, two auth_tokens');
    t.not(first.xml.session_token, second.xml.session_token, 'two joins, two session_tokens');
    const link = roomAndToken(first.xml.url);
    t.match(
      (await startWithToken(d, link.roomId, link.token, 'Api User')).body,
      { status: 'joined' },
      'the URL with sessionToken still enters',
    );
  });

  t.test('end needs the generated moderator password', async (t) => {
    assertFailed(t, await api.get('end', [['meetingID', 'no-passwords']]), 'invalidPassword', 'without it');
    assertFailed(
      t,
      await api.get('end', [
        ['meetingID', 'no-passwords'],
        ['password', attendeePW],
      ]),
      'invalidPassword',
      'with the attendee one',
    );
    assertSuccess(
      t,
      await api.get('end', [
        ['meetingID', 'no-passwords'],
        ['password', moderatorPW],
      ]),
      'with it',
    );
  });
});
