// Issue 11 point 1 against the engine and module built in this process (spawned where it is killed): a meeting-API meeting cannot be entered by someone
// who only knows its meetingID. Its engine room id is random, a bare arrival meets the guest
// policy, `end` closes the room for good (join links issued before included), a re-create
// makes a new room, and /exists tells a caller without a token nothing.
import { createHash } from 'node:crypto';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { injectFetch } from '../../helpers/inject-fetch.js';
import { dataDirFor, type Tap } from '../../helpers/api.js';
import { stopDaemon } from '../../helpers/daemon.js';
import {
  assertSuccess,
  compatDaemonFor,
  ConfapiClient,
  roomAndToken,
  startWithToken,
  type CompatServer,
} from '../../helpers/compat.js';

const secret = 'room-secrecy-secret-5b2e';

/** The id an attacker derives from public data: what rooms were named before. */
const derived = (meetingId: string) =>
  `cf-${createHash('sha256').update(`primary\n${meetingId}`, 'utf8').digest('hex').slice(0, 32)}`;

async function bare(
  d: CompatServer,
  roomId: string,
  path: 'start' | 'knock' = 'start',
): Promise<{ status: number; body: any }> {
  const response = await injectFetch(`${d.url}/room/${encodeURIComponent(roomId)}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Intruder' }),
  });
  return { status: response.status, body: await response.json() };
}

async function exists(d: CompatServer, roomId: string, token?: string): Promise<{ status: number; text: string }> {
  const response = await injectFetch(
    `${d.url}/room/${encodeURIComponent(roomId)}/exists${token ? `?t=${encodeURIComponent(token)}` : ''}`,
  );
  return { status: response.status, text: await response.text() };
}

async function joinLink(api: ConfapiClient, meetingId: string, role: 'VIEWER' | 'MODERATOR' = 'VIEWER') {
  const answer = await api.get('join', [
    ['meetingID', meetingId],
    ['fullName', `A ${role.toLowerCase()}`],
    ['role', role],
    ['redirect', 'false'],
  ]);
  assertSuccess(t, answer, `join ${meetingId}`);
  return roomAndToken(String(answer.xml.url));
}

async function rig(t: Tap, dataDir = dataDirFor(t)) {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret }, dataDir });
  return { d, api: new ConfapiClient(d.compatUrl, secret) };
}

/** The same, spawned: for the daemon the test kills. */
async function spawnedRig(t: Tap, dataDir: string) {
  const d = await compatDaemonFor(t, { COMPAT_API_SHARED_SECRET: secret, SERVICE_DATA_DIR: dataDir });
  return { d, api: new ConfapiClient(d.compatUrl, secret) };
}

t.test('the room of a meeting is random and reached only through its links', async (t) => {
  const { d, api } = await rig(t);
  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'course-101'],
      ['maxParticipants', '2'],
    ]),
    'create (default guestPolicy ALWAYS_ACCEPT)',
  );
  const { roomId, token } = await joinLink(api, 'course-101');
  t.match(roomId, /^cf-[0-9a-f]{32}$/, '128 random bits');
  t.not(roomId, derived('course-101'), 'not derived from the meetingID');

  const nowhere = await exists(d, 'cf-00000000000000000000000000000000');
  t.same(await exists(d, roomId), nowhere, 'exists without a token answers exactly as for no room');
  t.same(await exists(d, roomId, 'not.a.token'), nowhere, 'a forged token is no token');
  const other = await joinLink(api, 'course-101');
  t.equal((await exists(d, roomId, other.token)).status, 200, 'exists with a join token of the room');

  for (let i = 0; i < 3; i++) {
    const guess = await bare(d, derived('course-101'));
    t.equal(guess.status, 404, 'the derived id is no room');
  }
  t.equal((await startWithToken(d, roomId, token)).status, 200, 'the platform user enters');
  const second = await joinLink(api, 'course-101');
  t.equal((await startWithToken(d, roomId, second.token)).status, 200, 'and the second of maxParticipants=2');
  const full = await api.get('join', [
    ['meetingID', 'course-101'],
    ['fullName', 'Third'],
    ['role', 'VIEWER'],
  ]);
  t.equal(full.xml.messageKey, 'maxParticipantsReached', 'only the platform filled the meeting');
});

t.test('a bare arrival meets the guest policy', async (t) => {
  const { d, api } = await rig(t);
  const rooms: Record<string, string> = {};
  for (const policy of ['ALWAYS_ACCEPT', 'ASK_MODERATOR', 'ALWAYS_ACCEPT_AUTH', 'ALWAYS_DENY']) {
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', policy],
        ['guestPolicy', policy],
      ]),
      policy,
    );
    rooms[policy] = (await joinLink(api, policy)).roomId;
  }
  t.match(
    (await bare(d, rooms.ALWAYS_ACCEPT!)).body,
    { status: 'joined' },
    'ALWAYS_ACCEPT: in (knowing the random id is the key)',
  );
  t.same((await bare(d, rooms.ASK_MODERATOR!)).body, { status: 'knock' }, 'ASK_MODERATOR: she waits');
  t.equal((await bare(d, rooms.ASK_MODERATOR!, 'knock')).status, 202);
  t.same((await bare(d, rooms.ALWAYS_ACCEPT_AUTH!)).body, { status: 'knock' }, 'ALWAYS_ACCEPT_AUTH: she asks');
  const denied = await bare(d, rooms.ALWAYS_DENY!);
  t.equal(denied.status, 403, 'ALWAYS_DENY: refused');
  t.equal(denied.body.error.code, 'guest_denied');
  t.equal((await bare(d, rooms.ALWAYS_DENY!, 'knock')).status, 403, 'knocking does not get round it');
  const link = await joinLink(api, 'ALWAYS_DENY');
  t.equal((await startWithToken(d, link.roomId, link.token)).status, 200, 'a join link still enters');
});

t.test('end closes the room to every arrival, for good; a new create makes a new room', async (t) => {
  const dataDir = dataDirFor(t);
  const { d, api } = await spawnedRig(t, dataDir);
  const created = await api.get('create', [['meetingID', 'lecture']]);
  assertSuccess(t, created, 'create');
  const mod = await joinLink(api, 'lecture', 'MODERATOR');
  const early = await joinLink(api, 'lecture');
  t.equal((await startWithToken(d, mod.roomId, mod.token)).status, 200, 'the moderator is in');
  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'lecture'],
      ['password', created.xml.moderatorPW],
    ]),
    'end',
  );
  t.equal((await api.get('isMeetingRunning', [['meetingID', 'lecture']])).xml.running, 'false');

  t.equal((await bare(d, mod.roomId)).status, 404, 'a bare arrival after end: no such room');
  t.equal((await bare(d, mod.roomId, 'knock')).status, 404, 'nor by knocking');
  t.equal(
    (await startWithToken(d, mod.roomId, early.token)).status,
    404,
    'a join link issued before the end does not reopen it',
  );
  t.equal((await exists(d, mod.roomId, early.token)).status, 404, 'exists says nothing, even with a token');

  assertSuccess(t, await api.get('create', [['meetingID', 'lecture']]), 're-create');
  const again = await joinLink(api, 'lecture');
  t.not(again.roomId, mod.roomId, 'a new room');
  t.equal((await startWithToken(d, again.roomId, again.token)).status, 200, 'the new meeting is entered by its links');

  // The closed room stays closed across kill -9: it is a fact of the engine's own database.
  await stopDaemon(d, 'SIGKILL');
  const restarted = (await rig(t, dataDir)).d;
  t.equal((await startWithToken(restarted, mod.roomId, early.token)).status, 404, 'still closed after kill -9');
  t.equal((await bare(restarted, mod.roomId)).status, 404);
});
