// The live connection over a real socket of the whole daemon (src/daemon/run.ts), started in
// the test's process: the upgrade and its refusals, the messages both ways, the relay's locks.
// The leave grace runs on a fake scheduler the test moves; the rest of the daemon keeps real time.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import t from 'tap';
import type { DaemonOptions } from '../../../src/daemon/run.js';
import { call, dataDirFor, rooms, type Server } from '../../helpers/api.js';
import { FakeClock, FakeScheduler } from '../../helpers/fake-clock.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../../helpers/in-process-daemon.js';
import { connectLive, liveUrl, pause, refusedUpgrade, waitingUntil, type RefusedUpgrade } from '../../helpers/live.js';
import {
  admittedSession,
  asSession,
  attendanceRows,
  Browser,
  createRoom,
  linkToken,
  moderator,
  type Session,
} from '../../helpers/waiting.js';
import type { Tap } from '../../helpers/api.js';
import { audioOnlyOffer, recvonlyOffer, sendrecvOffer, videoOnlyOffer } from '../../unit/media/sdp-samples.js';

/** The daemon with its own data directory (or `dataDir`), stopped at teardown. */
function serve(t: Tap, dataDir = dataDirFor(t), options: DaemonOptions = {}): Promise<InProcessDaemon> {
  return inProcessDaemonFor(t, dataDir, {}, options);
}

/** A participant entering a room without a waiting room. */
async function guest(d: Server, roomId: string, name: string): Promise<Session> {
  const started = await call(d, `/room/${roomId}/start`, { method: 'POST', token: null, json: { name } });
  return admittedSession(started, name);
}

function assertUnauthorized(t: Tap, refused: RefusedUpgrade, why: string): void {
  t.equal(refused.status, 401, `${why}: 401`);
  t.match(refused.contentType, /^application\/json/, `${why}: JSON body`);
  t.equal(refused.body?.error?.code, 'unauthorized', `${why}: error.code unauthorized`);
  t.match(refused.body?.error?.message, /\S/, `${why}: a message`);
}

t.test('the upgrade is refused with 401 unless the session is an admitted one of this room', async (t) => {
  const d = await serve(t);
  await createRoom(t, d, { room_id: 'class', name: 'Class', waiting_room: 'all' });
  await createRoom(t, d, { room_id: 'other', name: 'Other', waiting_room: 'off' });
  const teacher = await moderator(d, 'class');
  const stranger = await guest(d, 'other', 'Stranger');

  assertUnauthorized(t, await refusedUpgrade(liveUrl(d, 'class')), 'no session');
  assertUnauthorized(t, await refusedUpgrade(liveUrl(d, 'class', 'not-a-token')), 'garbage session');
  const forged = teacher.session.slice(0, -4) + (teacher.session.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  assertUnauthorized(t, await refusedUpgrade(liveUrl(d, 'class', forged)), 'tampered signature');
  assertUnauthorized(t, await refusedUpgrade(liveUrl(d, 'class', stranger.session)), 'session of another room');
  const join = await linkToken(d, 'class', { role: 'moderator' });
  assertUnauthorized(t, await refusedUpgrade(liveUrl(d, 'class', join)), 'a join token is not a session');

  // A waiting person holds a cookie, not a session: nothing opens the socket for her.
  const waiting = new Browser(d, 'class');
  t.equal((await waiting.knock({ name: 'Wendy', note: 'let me in' })).status, 202);
  assertUnauthorized(
    t,
    await refusedUpgrade(liveUrl(d, 'class'), { cookie: `meet_wait=${waiting.cookie}` }),
    'waiting person with her cookie',
  );
  assertUnauthorized(
    t,
    await refusedUpgrade(liveUrl(d, 'class'), {
      cookie: `meet_wait=${waiting.cookie}`,
      authorization: `Bearer ${waiting.cookie}`,
    }),
    'waiting person presenting her cookie as a bearer',
  );

  // The teacher's own session opens it, by query or by header.
  const { client, welcome } = await connectLive(d, 'class', teacher.session);
  t.equal(welcome.self.participant_id, teacher.participantId);
  await client.close();

  // Once the meeting is gone (room deleted), the session opens nothing.
  t.equal((await rooms.delete(d, 'class')).status, 204);
  assertUnauthorized(t, await refusedUpgrade(liveUrl(d, 'class', teacher.session)), 'session of an ended meeting');

  const plain = await fetch(`${d.url}/room/other/live?session=${stranger.session}`);
  t.not(plain.status, 101, 'a plain GET does not upgrade');
  t.ok(
    d.lines.every((line) => !line.includes(stranger.session)),
    'the session token never appears in the log',
  );
});

t.test('welcome, join and leave broadcasts, chat both ways, and a reload is not a leave', async (t) => {
  // The leave grace (5 s) passes when the test says so.
  const scheduler = new FakeScheduler(new FakeClock());
  const d = await serve(t, undefined, { scheduler });
  await createRoom(t, d, { room_id: 'room', name: 'Room', waiting_room: 'off' });
  const mod = await moderator(d, 'room', 'Mallory');
  const ann = await guest(d, 'room', 'Ann');

  const m = await connectLive(d, 'room', mod.session);
  t.match(m.welcome, {
    type: 'welcome',
    room_id: 'room',
    room_name: 'Room',
    self: {
      participant_id: mod.participantId,
      name: 'Mallory',
      role: 'moderator',
      audio: false,
      video: false,
      screen: false,
    },
    locks: { mic: false, cam: false, cams_moderators_only: false },
    chat: [],
    subgroups: [],
  });
  t.same(
    m.welcome.participants.map((p) => p.participant_id),
    [mod.participantId],
    'the list holds who is connected, self included',
  );

  const a = await connectLive(d, 'room', ann.session);
  t.same(a.welcome.participants.map((p) => p.name).sort(), ['Ann', 'Mallory']);
  t.match(a.welcome.self, { participant_id: ann.participantId, role: 'participant' });
  t.match((await m.client.next('participant_joined')).participant, {
    participant_id: ann.participantId,
    name: 'Ann',
    role: 'participant',
  });
  t.equal(a.client.pending('participant_joined').length, 0, 'no one is told of their own arrival');

  // Chat both ways; the sender gets its own message back with the server's time.
  a.client.send({ type: 'chat', text: 'Hello <b>teacher</b>' });
  const atMod = await m.client.next('chat');
  t.match(atMod.message, { from: { participant_id: ann.participantId, name: 'Ann' }, text: 'Hello <b>teacher</b>' });
  t.ok(Date.parse(atMod.message.at) > 0, 'at is a timestamp');
  t.equal((await a.client.next('chat')).message.text, 'Hello <b>teacher</b>', 'echoed to the sender');
  m.client.send({ type: 'chat', text: 'Hi Ann' });
  t.match((await a.client.next('chat')).message, { from: { name: 'Mallory' }, text: 'Hi Ann' });
  await m.client.next('chat');

  a.client.send({ type: 'chat', text: '   ' });
  t.equal((await a.client.next('error')).code, 'invalid_message', 'a blank chat message is refused');
  a.client.send({ type: 'chat', text: 'x'.repeat(2001) });
  t.equal((await a.client.next('error')).code, 'invalid_message', 'more than 2000 characters is refused');
  a.client.send({ type: 'chat', text: 'x'.repeat(2000) });
  t.equal((await m.client.next('chat')).message.text.length, 2000, '2000 characters pass');
  a.client.sendRaw('not json');
  t.equal((await a.client.next('error')).code, 'invalid_message');
  a.client.send({ type: 'dance' });
  t.equal((await a.client.next('error')).code, 'invalid_message');

  // Audio, video and screen states reach everyone.
  a.client.send({ type: 'state', audio: true, video: true, screen: false });
  t.match((await m.client.next('state')).participant, {
    participant_id: ann.participantId,
    audio: true,
    video: true,
    screen: false,
  });
  // The room was told just now; a change after the flush interval (250 ms) goes out at once,
  // with no timer of this test's fake scheduler to advance.
  await pause(300);
  a.client.send({ type: 'speaking', speaking: true });
  t.same(await m.client.next('speaking'), { type: 'speaking', participant_id: ann.participantId, speaking: true });

  // A late joiner gets the recent chat.
  const bob = await guest(d, 'room', 'Bob');
  const b = await connectLive(d, 'room', bob.session);
  t.same(
    b.welcome.chat.map((c) => c.text.slice(0, 20)),
    ['Hello <b>teacher</b>', 'Hi Ann', 'x'.repeat(20)],
    'recent chat in the welcome',
  );
  t.match(
    b.welcome.participants.find((p) => p.participant_id === ann.participantId),
    { audio: true, video: true },
    'current states in the welcome',
  );

  // A reload: the socket closes and a new one opens within the grace period.
  await b.client.close();
  t.equal(
    (await m.client.next('participant_left', (x) => x.participant_id === bob.participantId)).type,
    'participant_left',
  );
  const again = await connectLive(d, 'room', bob.session);
  await m.client.next('participant_joined', (x) => x.participant.participant_id === bob.participantId);
  scheduler.advance(5_500);
  const leftAt = async (name: string) => (await attendanceRows(d, 'room')).find((row) => row[0] === name)?.[4];
  t.equal(await leftAt('Bob'), '', 'a reload within the grace period records no leave');

  // A second socket of the same participant replaces the first.
  const twin = await connectLive(d, 'room', bob.session);
  t.equal((await again.client.closed).code, 4409, 'the older socket is closed with 4409');
  t.equal(twin.welcome.self.participant_id, bob.participantId);

  // Leaving for real: after the grace period the engine records the leave.
  await twin.client.close();
  await m.client.next('participant_left', (x) => x.participant_id === bob.participantId);
  t.equal(await leftAt('Bob'), '', 'not yet left right after the socket closed');
  scheduler.advance(4_900);
  t.equal(await leftAt('Bob'), '', 'not yet left just before the grace period is over');
  scheduler.advance(600);
  t.match(await leftAt('Bob'), /^\d{4}-\d\d-\d\dT/, 'Bob left once the grace period was over');

  await a.client.close();
  await m.client.close();
});

t.test('moderators get the whole waiting list, then its changes in sequence; participants never do', async (t) => {
  const d = await serve(t);
  await createRoom(t, d, { room_id: 'class', name: 'Class', waiting_room: 'guests' });
  const mod = await moderator(d, 'class');
  const pupilToken = await linkToken(d, 'class', { role: 'participant', name: 'Pupil' });
  const pupil = admittedSession(
    await call(d, '/room/class/start', { method: 'POST', token: null, json: { t: pupilToken } }),
    'Pupil',
  );
  const m = await connectLive(d, 'class', mod.session);
  const p = await connectLive(d, 'class', pupil.session);
  t.same(
    await m.client.next('waiting_list'),
    { type: 'waiting_list', seq: 0, requests: [] },
    'the moderator starts with the (empty) list at seq 0',
  );

  const wendy = new Browser(d, 'class', { forwardedFor: '198.51.100.1' });
  t.equal((await wendy.knock({ name: 'Wendy', note: 'I am <i>late</i>' })).status, 202);
  const knocked = await m.client.next('waiting_changes');
  t.match(knocked, { seq: 1, updated: [], removed: [] }, 'a knock is a change with seq 1');
  t.match(knocked.added, [{ name: 'Wendy', note: 'I am <i>late</i>', knocked_at: /^\d{4}-/ }]);
  const wendyId = knocked.added[0]!.request_id;

  const vic = new Browser(d, 'class', { forwardedFor: '198.51.100.2' });
  await vic.knock({ name: 'Vic', note: '' });
  t.same(
    (await m.client.next('waiting_changes')).added.map((r) => r.name),
    ['Vic'],
    'the next knock carries only Vic',
  );

  await vic.withdraw();
  const withdrawn = await m.client.next('waiting_changes');
  t.match(withdrawn, { seq: 3, added: [], removed: [/./] }, 'a withdrawal carries only the id');
  t.same(
    (await waitingUntil(m.client, (w) => w.seq === 3)).requests.map((r) => r.name),
    ['Wendy'],
  );

  // Round trip through the pupil's socket, then check nothing about waiting reached her.
  p.client.send({ type: 'waiting_resync' });
  t.equal((await p.client.next('error')).code, 'not_moderator', 'a participant cannot ask for the list');
  p.client.send({ type: 'chat', text: 'sync' });
  await p.client.next('chat');
  t.equal(
    p.client.all('waiting_list').length + p.client.all('waiting_changes').length,
    0,
    'a participant receives no waiting list',
  );
  t.ok(
    p.client.received.every((msg) => !JSON.stringify(msg).includes('Wendy')),
    'nothing names the waiting person to a participant',
  );

  // A resync answers the whole list at the current seq.
  m.client.send({ type: 'waiting_resync' });
  const resent = await m.client.next('waiting_list');
  t.equal(resent.seq, 3, 'at the seq of the last change');
  t.same(
    resent.requests.map((r) => r.request_id),
    [wendyId],
  );

  // Admission moves the person out of the list.
  const admitted = await call(d, '/room/class/admit', {
    method: 'POST',
    token: mod.session,
    json: { request_id: wendyId },
  });
  t.same(admitted.body, { admitted: 1 });
  t.match(await m.client.next('waiting_changes'), { seq: 4, added: [], removed: [wendyId] });
  await m.client.close();
  await p.client.close();
});

t.test(
  'two moderators, 400 knocks in a row: both hold the same list as the HTTP list, in bytes linear in the knocks',
  async (t) => {
    // Durability is not what is measured here: on tmpfs, 400 knocks one after another take seconds, not a minute.
    const dataDir = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/meet-live-') : dataDirFor(t);
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    const d = await serve(t, dataDir);
    await createRoom(t, d, { room_id: 'hall', name: 'Hall', waiting_room: 'all', waiting_room_timeout_secs: 3600 });
    const first = await moderator(d, 'hall', 'First');
    const second = await moderator(d, 'hall', 'Second');
    const a = await connectLive(d, 'hall', first.session);
    const b = await connectLive(d, 'hall', second.session);
    await waitingUntil(a.client, () => true);
    await waitingUntil(b.client, () => true);
    const bytesBefore = { a: a.client.bytes, b: b.client.bytes };

    const knocks = 400;
    const browsers: Browser[] = [];
    const keepAlive = async () => {
      // Pages poll every 2 s; a request unpolled for 6 s is closed. Poll them all now and then.
      for (let i = 0; i < browsers.length; i += 50)
        await Promise.all(browsers.slice(i, i + 50).map((browser) => browser.poll()));
    };
    let lastKeep = Date.now();
    for (let i = 0; i < knocks; i++) {
      const browser = new Browser(d, 'hall', { forwardedFor: `198.51.${100 + (i >> 8)}.${i & 255}` });
      const knocked = await browser.knock({ name: `Pupil ${i}`, note: 'in a row' });
      if (knocked.status !== 202) throw new Error(`knock ${i}: ${knocked.status} ${knocked.text}`);
      browsers.push(browser);
      if (Date.now() - lastKeep > 2000) {
        await keepAlive();
        lastKeep = Date.now();
      }
    }
    const full = await waitingUntil(a.client, (w) => w.requests.length === knocks, 15_000);
    await waitingUntil(b.client, (w) => w.seq === full.seq, 15_000);
    const bytes = { a: a.client.bytes - bytesBefore.a, b: b.client.bytes - bytesBefore.b };
    t.ok(
      bytes.a < knocks * 2048 && bytes.b < knocks * 2048,
      `each moderator received ${bytes.a} and ${bytes.b} bytes for ${knocks} knocks (< ${knocks} × 2 KiB)`,
    );
    // The whole list after every knock would have been about knocks²/2 items of ~130 bytes.
    t.ok(bytes.a < (knocks * knocks * 130) / 2 / 20, 'not the O(n²) of a whole list per knock');

    // Decisions from both moderators: one admits, the other refuses and bars.
    const ids = full.requests.map((r) => r.request_id);
    t.equal((await asSession.admit(d, 'hall', first.session, { request_id: ids[0] })).status, 200);
    t.equal((await asSession.refuse(d, 'hall', second.session, { request_id: ids[1], bar: false })).status, 200);
    t.equal((await asSession.refuse(d, 'hall', first.session, { request_id: ids[2], bar: true })).status, 200);
    await keepAlive();
    const listed = await asSession.list(d, 'hall', first.session);
    const expected = (listed.body as { request_id: string }[]).map((r) => r.request_id);
    t.equal(expected.length, knocks - 3, 'the HTTP list lost the three decided');
    const viewA = await waitingUntil(a.client, (w) => w.requests.length === knocks - 3);
    const viewB = await waitingUntil(b.client, (w) => w.seq === viewA.seq);
    t.same(
      viewA.requests.map((r) => r.request_id),
      expected,
      'the first moderator holds the HTTP list, in knock order',
    );
    t.same(
      viewB.requests.map((r) => r.request_id),
      expected,
      'and so does the second',
    );
    t.same(viewA.requests, listed.body, 'item for item');
    t.equal(a.client.all('waiting_list').length, 1, 'one whole list (on connect), the rest were changes');
    await a.client.close();
    await b.client.close();
  },
);

t.test('locks: only moderators set them, and the relay enforces them on what it relays', async (t) => {
  const d = await serve(t);
  await createRoom(t, d, { room_id: 'room', name: 'Room', waiting_room: 'off' });
  const mod = await moderator(d, 'room');
  const ann = await guest(d, 'room', 'Ann');
  const bob = await guest(d, 'room', 'Bob');
  const m = await connectLive(d, 'room', mod.session);
  const a = await connectLive(d, 'room', ann.session);
  const b = await connectLive(d, 'room', bob.session);

  // Unlocked: an offer with audio and video passes, as sent.
  const candidate = {
    candidate: 'candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host',
    sdpMid: '0',
    sdpMLineIndex: 0,
  };
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: sendrecvOffer } },
  });
  const relayed = await b.client.next('signal');
  t.same(relayed, {
    type: 'signal',
    from: ann.participantId,
    data: { description: { type: 'offer', sdp: sendrecvOffer } },
  });
  a.client.send({ type: 'signal', to: bob.participantId, data: { candidate } });
  t.same((await b.client.next('signal')).data, { candidate });

  // A participant may not lock.
  a.client.send({ type: 'lock', locks: { mic: false, cam: false, cams_moderators_only: false } });
  t.equal((await a.client.next('error')).code, 'not_moderator');

  m.client.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
  for (const c of [m, a, b])
    t.same((await c.client.next('locks')).locks, { mic: true, cam: false, cams_moderators_only: false });

  // Ann's offer that would send audio is refused and not delivered.
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: sendrecvOffer } },
  });
  t.equal((await a.client.next('error')).code, 'locked', 'the sender is told: locked');
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'answer', sdp: audioOnlyOffer } },
  });
  t.equal((await a.client.next('error')).code, 'locked', 'an answer that sends audio is refused too');
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'pranswer', sdp: sendrecvOffer.replace(/\r\n/g, '\n') } },
  });
  t.equal((await a.client.next('error')).code, 'locked', 'and a provisional answer, whatever the line endings');
  // Video only, or nothing sent at all: passes.
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: videoOnlyOffer } },
  });
  t.same(
    await b.client.next('signal'),
    { type: 'signal', from: ann.participantId, data: { description: { type: 'offer', sdp: videoOnlyOffer } } },
    'an offer sending only video passes under a microphone lock',
  );
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: recvonlyOffer } },
  });
  t.same(
    (await b.client.next('signal')).data,
    { description: { type: 'offer', sdp: recvonlyOffer } },
    'a recvonly offer passes',
  );
  t.equal(
    b.client.all('signal').filter((s) => 'description' in s.data && s.data.description.sdp === sendrecvOffer).length,
    1,
    'only the unlocked first offer with audio ever reached Bob',
  );
  t.equal(b.client.all('signal').length, 4, 'Bob received exactly the four signals that passed');

  // The moderator is never locked.
  m.client.send({
    type: 'signal',
    to: ann.participantId,
    data: { description: { type: 'offer', sdp: sendrecvOffer } },
  });
  t.same((await a.client.next('signal')).from, mod.participantId, "the moderator's offer with audio passes");

  // A state claiming audio under the lock is refused and corrected.
  a.client.send({ type: 'state', audio: true, video: true, screen: false });
  t.equal((await a.client.next('error')).code, 'locked');
  t.match((await m.client.next('state', (s) => s.participant.participant_id === ann.participantId)).participant, {
    audio: false,
    video: true,
  });

  // Cameras for moderators only: video from a participant is refused too.
  m.client.send({ type: 'lock', locks: { mic: false, cam: false, cams_moderators_only: true } });
  await a.client.next('locks');
  t.match(
    (await m.client.next('state', (s) => s.participant.participant_id === ann.participantId)).participant,
    { video: false },
    'her video is switched off by the new lock',
  );
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: videoOnlyOffer } },
  });
  t.equal((await a.client.next('error')).code, 'locked');
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: audioOnlyOffer } },
  });
  t.same(
    (await b.client.next('signal')).data,
    { description: { type: 'offer', sdp: audioOnlyOffer } },
    'audio passes again once the mic is unlocked',
  );
  m.client.send({ type: 'lock', locks: { mic: false, cam: true, cams_moderators_only: false } });
  await a.client.next('locks');
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'answer', sdp: sendrecvOffer } },
  });
  t.equal((await a.client.next('error')).code, 'locked', 'a locked camera refuses video');

  // Signals to someone not in the meeting, or malformed, are never relayed.
  const before = b.client.all('signal').length;
  a.client.send({ type: 'signal', to: 'nobody-at-all', data: { candidate } });
  a.client.send({ type: 'signal', to: ann.participantId, data: { candidate } });
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: recvonlyOffer }, extra: 1 },
  });
  t.equal((await a.client.next('error')).code, 'invalid_signal');
  a.client.send({
    type: 'signal',
    to: bob.participantId,
    data: { description: { type: 'offer', sdp: recvonlyOffer.replace('a=recvonly\r\n', 'a=recvonly\r\r\n') } },
  });
  t.equal((await a.client.next('error')).code, 'invalid_signal', 'a stray carriage return is refused');
  a.client.send({ type: 'chat', text: 'sync' });
  await b.client.next('chat', (c) => c.message.text === 'sync');
  t.equal(b.client.all('signal').length, before, 'nothing of the above reached Bob');
  t.equal(
    a.client.all('signal').filter((s) => s.from === ann.participantId).length,
    0,
    'nothing came back to Ann from herself',
  );

  // Someone who left is no longer a member: their socket is closed, signals to them are dropped.
  t.equal((await call(d, '/room/room/leave', { method: 'POST', token: bob.session, json: {} })).status, 204);
  t.equal((await b.client.closed).code, 1000, "leaving through the room address closes the person's socket");
  await a.client.next('participant_left', (x) => x.participant_id === bob.participantId);
  a.client.send({ type: 'signal', to: bob.participantId, data: { candidate } });
  a.client.send({ type: 'chat', text: 'sync 2' });
  await a.client.next('chat', (c) => c.message.text === 'sync 2');
  t.equal(a.client.pending('error').length, 0, 'a signal to someone gone is dropped without an error');

  await a.client.close();
  await m.client.close();
});

t.test('the end of a meeting reaches everyone connected', async (t) => {
  const d = await serve(t);
  await createRoom(t, d, { room_id: 'room', name: 'Room', waiting_room: 'off' });
  const mod = await moderator(d, 'room');
  const ann = await guest(d, 'room', 'Ann');
  const m = await connectLive(d, 'room', mod.session);
  const a = await connectLive(d, 'room', ann.session);
  t.equal((await rooms.delete(d, 'room')).status, 204);
  for (const c of [m, a]) {
    t.same(await c.client.next('ended'), { type: 'ended' });
    t.equal((await c.client.closed).code, 4410, 'closed with 4410');
  }
});
