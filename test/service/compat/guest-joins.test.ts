// Issue 12 point 2 against a real daemon: a join with guest=true is a bare-link guest, and the
// meeting's guestPolicy decides for her (ALLOW, WAIT for a moderator, DENY); joins without it
// and moderators enter directly whatever the policy.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

// Issue 33 point 1: Greenlight and Canvas create ASK_MODERATOR meetings and join viewers without
// guest=true; upstream (authenticatedGuest on) makes them wait. COMPAT_AUTHENTICATED_GUEST does here.
t.test('COMPAT_AUTHENTICATED_GUEST: a viewer of an ASK_MODERATOR meeting waits like a guest', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-authguest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  const plainSecret = 'plain-tenant-secret-0123456789abcdefghij';
  writeFileSync(file, `[tenants.plain]\napi_secret = "${plainSecret}"\nauthenticated_guest = false\n`);
  const d = await compatAppFor(t, {
    env: { COMPAT_API_SHARED_SECRET: secret, COMPAT_AUTHENTICATED_GUEST: 'true', SERVICE_TENANTS_FILE: file },
  });
  const api = new ConfapiClient(d.compatUrl, secret);
  const plain = new ConfapiClient(d.compatUrl, plainSecret);
  for (const [client, id, policy] of [
    [api, 'gl-room', 'ASK_MODERATOR'],
    [api, 'auth-room', 'ALWAYS_ACCEPT_AUTH'],
    [plain, 'plain-room', 'ASK_MODERATOR'],
  ] as const) {
    assertSuccess(
      t,
      await client.get('create', [
        ['meetingID', id],
        ['guestPolicy', policy],
        ['attendeePW', 'ap'],
        ['moderatorPW', 'mp'],
      ]),
      `create ${id}`,
    );
  }

  // Greenlight's viewer join: the attendee password, no guest parameter.
  const viewer = await joinAs(t, api, 'gl-room', [['password', 'ap']]);
  t.equal(viewer.xml.guestStatus, 'WAIT', 'redirect=false answers WAIT');
  t.equal(viewer.xml.messageKey, 'guestWait');
  const { roomId, token } = roomAndToken(String(viewer.xml.url));
  t.match(claimsOf(token), { source: 'link', role: 'participant' }, 'her link is a guest link');
  const browser = new Browser(d, roomId);
  t.same((await browser.start({ name: 'typed', t: token })).body, { status: 'knock' }, 'she meets the waiting room');
  t.equal((await browser.knock({ name: 'typed', note: '', t: token })).status, 202);

  const teacher = await joinAs(t, api, 'gl-room', [['password', 'mp']]);
  t.equal(teacher.xml.guestStatus, 'ALLOW', 'the moderator enters directly');
  const modLink = roomAndToken(String(teacher.xml.url));
  const mod = await startWithToken(d, roomId, modLink.token, 'Teacher');
  t.match(mod.body, { status: 'joined', role: 'moderator' });
  const list = await asSession.list(d, roomId, mod.body.session);
  t.same(
    list.body.map((r: { name: string }) => r.name),
    ['Gina Guest'],
    'the moderator sees her asking',
  );
  t.equal((await asSession.admit(d, roomId, mod.body.session, { request_id: list.body[0].request_id })).status, 200);
  t.match((await browser.poll()).body, { status: 'admitted', session: String }, 'admitted, she enters');

  const redirected = await injectFetch(
    api.url('join', [
      ['meetingID', 'gl-room'],
      ['fullName', 'Vera Viewer'],
      ['role', 'VIEWER'],
    ]),
    { redirect: 'manual' },
  );
  t.equal(redirected.status, 302, 'a browser join is still a redirect');
  t.equal(claimsOf(roomAndToken(redirected.headers.get('location')!).token).source, 'link', 'to a link that waits');

  const authViewer = await joinAs(t, api, 'auth-room', [['role', 'VIEWER']]);
  t.equal(authViewer.xml.guestStatus, 'ALLOW', 'ALWAYS_ACCEPT_AUTH: an authenticated viewer enters');
  const authGuest = await joinAs(t, api, 'auth-room', [
    ['role', 'VIEWER'],
    ['guest', 'true'],
  ]);
  t.equal(authGuest.xml.guestStatus, 'WAIT', 'ALWAYS_ACCEPT_AUTH: a guest=true join waits');

  const plainViewer = await joinAs(t, plain, 'plain-room', [['password', 'ap']]);
  t.equal(plainViewer.xml.guestStatus, 'ALLOW', "a tenant's authenticated_guest = false overrides the setting");
  t.equal(claimsOf(roomAndToken(String(plainViewer.xml.url)).token).source, 'lms');
});

t.test('COMPAT_AUTHENTICATED_GUEST unset: a viewer without guest=true enters, as the spec says', async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret } });
  const api = new ConfapiClient(d.compatUrl, secret);
  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'gl'],
      ['guestPolicy', 'ASK_MODERATOR'],
    ]),
    'create',
  );
  const viewer = await joinAs(t, api, 'gl', [['role', 'VIEWER']]);
  t.equal(viewer.xml.guestStatus, 'ALLOW');
  t.equal(claimsOf(roomAndToken(String(viewer.xml.url)).token).source, 'lms');
});
