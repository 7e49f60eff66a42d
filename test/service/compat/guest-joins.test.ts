// Issue 12 point 2 against a real daemon: a join with guest=true is a bare-link guest, and the
// meeting's guestPolicy decides for her (ALLOW, WAIT for a moderator, DENY); joins without it
// and moderators enter directly whatever the policy.
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import type { Tap } from '../../helpers/api.js';
import {
  assertFailed,
  assertSuccess,
  claimsOf,
  ConfapiClient,
  roomAndToken,
  startWithToken,
  type CompatServer,
} from '../../helpers/compat.js';
import { asSession, Browser } from '../../helpers/waiting.js';

const secret = 'guest-joins-secret-40d1';

async function joinAs(t: Tap, api: ConfapiClient, meetingId: string, extra: [string, string][]) {
  const answer = await api.get('join', [
    ['meetingID', meetingId],
    ['fullName', 'Gina Guest'],
    ...extra,
    ['redirect', 'false'],
  ]);
  assertSuccess(t, answer, `join ${meetingId} ${JSON.stringify(extra)}`);
  return answer;
}

t.test('guest=true under each guestPolicy', async (t) => {
  const d: CompatServer = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret } });
  const api = new ConfapiClient(d.compatUrl, secret);
  for (const policy of ['ALWAYS_ACCEPT', 'ASK_MODERATOR', 'ALWAYS_DENY', 'ALWAYS_ACCEPT_AUTH']) {
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', policy],
        ['guestPolicy', policy],
      ]),
      `create ${policy}`,
    );
  }
  const guest: [string, string][] = [
    ['guest', 'true'],
    ['role', 'VIEWER'],
  ];

  t.test('ALWAYS_ACCEPT: ALLOW, she enters', async (t) => {
    const answer = await joinAs(t, api, 'ALWAYS_ACCEPT', guest);
    t.equal(answer.xml.guestStatus, 'ALLOW');
    t.equal(answer.xml.messageKey, 'successfullyJoined');
    const { roomId, token } = roomAndToken(String(answer.xml.url));
    t.match(claimsOf(token), { source: 'link', name: 'Gina Guest' }, "a bare-link guest's link");
    t.match((await startWithToken(d, roomId, token)).body, { status: 'joined', role: 'participant' });
  });

  t.test('ASK_MODERATOR: WAIT, she knocks and a moderator admits her from the panel', async (t) => {
    const answer = await joinAs(t, api, 'ASK_MODERATOR', guest);
    t.equal(answer.xml.guestStatus, 'WAIT');
    t.equal(answer.xml.messageKey, 'guestWait');
    const { roomId, token } = roomAndToken(String(answer.xml.url));
    const browser = new Browser(d, roomId);
    t.same(
      (await browser.start({ name: 'typed', t: token })).body,
      { status: 'knock' },
      'the link leads to the waiting room',
    );
    t.equal((await browser.knock({ name: 'typed', note: '', t: token })).status, 202);

    const modLink = roomAndToken(
      String(
        (
          await joinAs(t, api, 'ASK_MODERATOR', [
            ['role', 'MODERATOR'],
            ['guest', 'true'],
          ])
        ).xml.url,
      ),
    );
    const mod = await startWithToken(d, roomId, modLink.token, 'Teacher');
    t.match(mod.body, { status: 'joined', role: 'moderator' }, 'a moderator is never a guest');
    const list = await asSession.list(d, roomId, mod.body.session);
    t.same(
      list.body.map((r: { name: string }) => r.name),
      ['Gina Guest'],
      'the waiting list shows her fullName',
    );
    t.equal((await asSession.admit(d, roomId, mod.body.session, { request_id: list.body[0].request_id })).status, 200);
    const polled = await browser.poll();
    t.match(polled.body, { status: 'admitted', session: String }, 'admitted, she enters');
    const info = await api.get('getMeetingInfo', [['meetingID', 'ASK_MODERATOR']]);
    t.equal(info.xml.participantCount, '2', 'the moderator and the admitted guest');
  });

  t.test('ASK_MODERATOR: a waiting guest is not an attendee', async (t) => {
    const answer = await joinAs(t, api, 'ALWAYS_ACCEPT_AUTH', guest);
    t.equal(answer.xml.guestStatus, 'WAIT', 'ALWAYS_ACCEPT_AUTH makes guests ask too');
    const { roomId, token } = roomAndToken(String(answer.xml.url));
    t.equal((await new Browser(d, roomId).knock({ name: 'x', note: '', t: token })).status, 202);
    const info = await api.get('getMeetingInfo', [['meetingID', 'ALWAYS_ACCEPT_AUTH']]);
    t.equal(info.xml.participantCount, '0');
    t.equal(info.xml.running, 'false');
  });

  t.test('ALWAYS_DENY: DENY, no link; a browser gets a page saying so', async (t) => {
    const answer = await joinAs(t, api, 'ALWAYS_DENY', guest);
    t.equal(answer.xml.guestStatus, 'DENY');
    t.equal(answer.xml.messageKey, 'guestDeny');
    t.notMatch(answer.text, /[?&]t=/, 'no join token is handed out');
    const page = await injectFetch(
      api.url('join', [
        ['meetingID', 'ALWAYS_DENY'],
        ['fullName', 'Gina'],
        ['guest', 'true'],
        ['role', 'VIEWER'],
      ]),
      { redirect: 'manual' },
    );
    t.equal(page.status, 403, 'not a redirect');
    t.match(page.headers.get('content-type'), /^text\/html/);
    t.match(await page.text(), /You cannot join this meeting/);

    const member = await joinAs(t, api, 'ALWAYS_DENY', [['role', 'VIEWER']]);
    t.equal(member.xml.guestStatus, 'ALLOW', 'a platform user (no guest=true) is not a guest');
    const { roomId, token } = roomAndToken(String(member.xml.url));
    t.match((await startWithToken(d, roomId, token)).body, { status: 'joined' }, 'and enters directly');
  });

  t.test('guest must be a boolean', async (t) => {
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'ALWAYS_ACCEPT'],
        ['fullName', 'G'],
        ['guest', 'maybe'],
        ['redirect', 'false'],
      ]),
      'validationError',
      'guest=maybe',
    );
  });
});
