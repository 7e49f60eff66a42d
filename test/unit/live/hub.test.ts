import t from 'tap';
import { EngineError } from '../../../src/engine/errors.js';
import { closeCodes } from '../../../src/protocol/live.js';
import { parseClientMessage } from '../../../src/http/live/client-messages.js';
import type { MediaBackend } from '../../../src/engine/live/media-port.js';
import { FakeConnection, LiveFixture } from '../../helpers/live-fixture.js';
import { arrive, claims } from '../../helpers/engine-fixture.js';
import { recvonlyOffer, sendrecvOffer } from '../media/sdp-samples.js';

t.test('connect: welcome, joined and left broadcasts; refused sessions are closed with 4401', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const m = await f.connect(mod);
  const welcome = m.conn.last('welcome');
  t.match(welcome, {
    room_id: 'r1',
    self: { participant_id: mod.participantId, role: 'moderator' },
    chat: [],
    subgroups: [],
  });
  t.same(
    m.conn.last('waiting_list'),
    { type: 'waiting_list', seq: 0, requests: [] },
    'a moderator gets the waiting list after the welcome',
  );
  const a = await f.connect(ann);
  t.equal(a.conn.of('waiting_list').length, 0, 'a participant does not');
  t.same(m.conn.last('participant_joined')?.participant.participant_id, ann.participantId);
  t.same(
    a.conn.last('welcome')?.participants.map((p) => p.name),
    ['Mod', 'Ann'],
  );

  const refused = new FakeConnection();
  t.equal(
    f.hub.connect(
      { room: 'r1', meeting: 'nope', participant: ann.participantId, role: 'participant', name: 'Ann' },
      refused,
    ),
    null,
  );
  t.equal(refused.closedWith?.code, closeCodes.unauthorized, 'a session of another meeting is closed with 4401');
  const other = new FakeConnection();
  t.equal(
    f.hub.connect({ room: 'r1', meeting: ann.meetingId, participant: 'ghost', role: 'participant', name: 'G' }, other),
    null,
  );
  t.equal(other.closedWith?.code, 4401);

  f.disconnect(a);
  t.same(m.conn.last('participant_left'), { type: 'participant_left', participant_id: ann.participantId });
  f.disconnect(a);
  t.equal(m.conn.of('participant_left').length, 1, 'a second close event changes nothing');
});

t.test('a closed socket leaves the meeting only after the grace period', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  await f.connect(mod);
  const a = await f.connect(ann);
  f.disconnect(a);
  f.timers.advance(4_999);
  // A leave awaits the store.
  await f.settled();
  t.equal(f.leftAt(ann), null, 'still present 1 ms before the grace period ends');
  const back = await f.connect(ann);
  f.timers.advance(10_000);
  await f.settled();
  t.equal(f.leftAt(ann), null, 'a reconnect within the grace period cancels the leave');

  f.disconnect(back);
  f.timers.advance(5_000);
  await f.settled();
  t.match(f.leftAt(ann), /^\d{4}-/, 'left after 5 s');
  t.equal(f.engine.meetings.present('r1').length, 1);

  // Once left, the session is over: it opens no socket, and she stays left.
  const late = new FakeConnection();
  t.equal(
    f.hub.connect(
      { room: 'r1', meeting: ann.meetingId, participant: ann.participantId, role: 'participant', name: 'Ann' },
      late,
    ),
    null,
  );
  t.equal(late.closedWith?.code, closeCodes.unauthorized, 'a session whose participant left is closed with 4401');
  t.match(f.leftAt(ann), /^\d{4}-/, 'still left');
  t.equal(f.engine.meetings.present('r1').length, 1);
});

t.test('the grace period is an option', async (t) => {
  const f = new LiveFixture({ live: { leaveGraceMs: 100 } });
  const ann = await f.enter('Ann');
  f.disconnect(await f.connect(ann));
  f.timers.advance(100);
  t.match(f.leftAt(ann), /^\d{4}-/);
});

t.test('until_moderator: the last moderator leaving after the grace period makes arrivals wait again', async (t) => {
  const f = new LiveFixture();
  f.room({ roomId: 'r2', waitingRoom: 'all', waitingRoomMode: 'until_moderator' });
  const mod = await f.enter('Mod', 'r2', true);
  const m = await f.connect(mod);
  t.equal(
    (await f.engine.waiting.start(arrive('r2', 'Early'))).status,
    'joined',
    'enters directly while a moderator is present',
  );
  f.disconnect(m);
  f.timers.advance(4_000);
  t.equal(
    (await f.engine.waiting.start(arrive('r2', 'Reload'))).status,
    'joined',
    'a reload of the moderator is not an absence',
  );
  f.timers.advance(1_000);
  t.equal((await f.engine.waiting.start(arrive('r2', 'Late'))).status, 'knock', 'after the grace period arrivals wait');
});

t.test('a second socket of the same participant replaces the first', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const m = await f.connect(mod);
  const first = await f.connect(ann);
  const second = await f.connect(ann);
  t.equal(first.conn.closedWith?.code, closeCodes.replaced);
  t.same(
    m.conn.sent.filter((x) => x.type === 'participant_left' || x.type === 'participant_joined').map((x) => x.type),
    ['participant_joined', 'participant_left', 'participant_joined'],
    'the others drop the old connection and meet the new one',
  );
  f.disconnect(first);
  f.timers.advance(10_000);
  t.equal(f.leftAt(ann), null, 'the old socket closing later is not a leave');
  second.send({ type: 'chat', text: 'still here' });
  await f.settled();
  t.equal(m.conn.last('chat')?.message.text, 'still here');
  first.send({ type: 'chat', text: 'ghost' });
  await f.settled();
  t.equal(m.conn.last('chat')?.message.text, 'still here', 'the replaced socket is not heard');
});

t.test('state, speaking and statistics are derived on the server', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const m = await f.connect(mod);
  const a = await f.connect(ann);
  a.send({ type: 'speaking', speaking: true });
  t.equal(m.conn.of('speaking').length, 0, 'speaking without audio is ignored');
  a.send({ type: 'state', audio: true, video: true, screen: true });
  t.match(m.conn.last('state')?.participant, { audio: true, video: true, screen: true });
  t.match(a.conn.last('state')?.participant, { audio: true }, 'the sender gets its state back too');
  // Its statistics await the store: written at this instant, before the clock moves on.
  await f.settled();
  a.send({ type: 'speaking', speaking: true });
  a.send({ type: 'speaking', speaking: true });
  // The room heard her state just now: the next change waits for the next flush, 250 ms on.
  t.equal(m.conn.of('speaking').length, 0, 'coalesced until the next flush');
  f.timers.advance(250);
  await f.settled();
  t.equal(m.conn.of('speaking').length, 1, 'only changes are broadcast');
  t.equal(a.conn.of('speaking').length, 0, 'not to the speaker');
  f.timers.advance(1_500);
  // Switching audio off ends speaking.
  a.send({ type: 'state', audio: false, video: true, screen: false });
  t.same(m.conn.last('speaking'), { type: 'speaking', participant_id: ann.participantId, speaking: false });
  await f.settled();
  f.timers.advance(1_750);
  a.send({ type: 'state', audio: false, video: false, screen: false });
  a.send({ type: 'chat', text: 'one' });
  await f.settled();
  a.send({ type: 'chat', text: 'two' });
  await f.settled();
  const [annStats] = (await f.stats.of(ann.meetingId)).filter((s) => s.participantId === ann.participantId);
  t.match(annStats, { talkTimeMs: 1_500, chatMessages: 2, audio: false, video: false, talking: false });
  t.equal(annStats?.webcams.length, 1);
  t.equal(
    Date.parse(annStats!.webcams[0]!.endedAt!) - Date.parse(annStats!.webcams[0]!.startedAt),
    3_500,
    'webcam on for 3.5 s',
  );
});

t.test('chat: stored, history for late joiners, limits, and System messages', async (t) => {
  const f = new LiveFixture({ live: { chatLimit: { count: 3, windowMs: 10_000 } } });
  const mod = await f.enter('Mod', 'r1', true);
  const m = await f.connect(mod);
  m.send({ type: 'chat', text: 'a' });
  await f.settled();
  m.send({ type: 'chat', text: 'b' });
  await f.settled();
  m.send({ type: 'chat', text: 'c' });
  await f.settled();
  m.send({ type: 'chat', text: 'd' });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'rate_limited', 'the fourth message in 10 s is refused');
  t.same(
    m.conn.of('chat').map((c) => c.message.text),
    ['a', 'b', 'c'],
  );
  f.timers.advance(10_000);
  m.send({ type: 'chat', text: 'e' });
  await f.settled();
  t.equal(m.conn.last('chat')?.message.text, 'e', 'accepted again in the next window');

  const posted = await f.hub.postSystemChat('r1', 'The meeting ends in 5 minutes');
  t.match(posted, { participantId: null, name: 'System', text: 'The meeting ends in 5 minutes' });
  t.match(
    m.conn.last('chat')?.message,
    { from: { participant_id: null, name: 'System', system: true }, text: posted?.text, at: posted?.at },
    'System messages reach everyone',
  );
  await t.rejects(() => f.hub.postSystemChat('r1', ''), EngineError, 'an empty System message is refused');
  t.equal(await f.hub.postSystemChat('nowhere', 'hello'), null, 'no meeting, no message');

  const ann = await f.connect(await f.enter('Ann'));
  t.same(
    ann.conn.last('welcome')?.chat.map((c) => c.text),
    ['a', 'b', 'c', 'e', 'The meeting ends in 5 minutes'],
  );
  t.same(
    f.liveStore.chat.map((c) => c.text),
    ['a', 'b', 'c', 'e', 'The meeting ends in 5 minutes'],
    'written through',
  );
  t.equal(
    (await f.stats.of(mod.meetingId)).find((s) => s.participantId === mod.participantId)?.chatMessages,
    4,
    'System messages count for nobody',
  );
});

t.test('chat: who sent a message travels as fields (system, role), never in the name', async (t) => {
  const f = new LiveFixture();
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const ann = await f.connect(await f.enter('Ann'));
  m.send({ type: 'chat', text: 'from the moderator' });
  await f.settled();
  ann.send({ type: 'chat', text: 'from Ann' });
  await f.settled();
  await f.hub.postSystemChat('r1', 'from the service');
  const expected = [
    { participant_id: String, name: 'Mod', role: 'moderator', system: false },
    { participant_id: String, name: 'Ann', role: 'participant', system: false },
    { participant_id: null, name: 'System', role: null, system: true },
  ];
  t.match(
    ann.conn.of('chat').map((c) => c.message.from),
    expected,
    'as they are posted',
  );
  const late = await f.connect(await f.enter('Late'));
  t.match(
    late.conn.last('welcome')?.chat.map((c) => c.from),
    expected,
    'and in the history a late arrival is given',
  );
});

t.test('malformed and unknown messages get an error, never an exception', async (t) => {
  const f = new LiveFixture({ live: { messageLimit: { count: 12, windowMs: 1_000 } } });
  const a = await f.connect(await f.enter('Ann'));
  const bad = [
    '',
    '[]',
    '{"type":1}',
    '{"type":"state","audio":"yes","video":false,"screen":false}',
    '{"type":"speaking"}',
    '{"type":"chat"}',
    '{"type":"signal","to":""}',
    '{"type":"lock","locks":{"mic":true}}',
    '{"type":"create_subgroups","count":1.5}',
    '{"type":"move","participant_id":1}',
    '{"type":"x"}',
  ];
  for (const raw of bad) a.session.receive(parseClientMessage(raw));
  t.equal(a.conn.of('error').length, bad.length);
  t.ok(a.conn.of('error').every((e) => e.code === 'invalid_message'));
  a.session.receive(parseClientMessage('{"type":"bring_back"}'));
  t.equal(a.conn.last('error')?.code, 'not_moderator');
  a.session.receive(parseClientMessage('{"type":"bring_back"}'));
  t.equal(a.conn.last('error')?.code, 'rate_limited', 'more than 12 messages a second are refused');
  t.same(f.errors, []);
});

t.test(
  'locks: moderators set them, states follow, defaults come from the provider and survive a restart',
  async (t) => {
    const f = new LiveFixture();
    const mod = await f.enter('Mod', 'r1', true);
    const ann = await f.enter('Ann');
    const m = await f.connect(mod);
    const a = await f.connect(ann);
    a.send({ type: 'state', audio: true, video: true, screen: true });
    m.send({ type: 'state', audio: true, video: true, screen: false });
    a.send({ type: 'lock', locks: { mic: true, cam: true, cams_moderators_only: false } });
    t.equal(a.conn.last('error')?.code, 'not_moderator');
    t.same(await f.hub.locks('r1'), { mic: false, cam: false, camsModeratorsOnly: false });

    m.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
    await f.settled();
    t.same(a.conn.last('locks')?.locks, { mic: true, cam: false, cams_moderators_only: false });
    t.match(
      m.conn.last('state')?.participant,
      { participant_id: ann.participantId, audio: false, video: true, screen: true },
      "Ann's microphone is off",
    );
    t.match(
      f.hub.attendees('r1').find((x) => x.participantId === mod.participantId),
      { audio: true, video: true },
      'moderators are never locked',
    );

    t.ok(
      await f.hub.setLocks('r1', { mic: true, cam: true, camsModeratorsOnly: false }),
      'the API sets locks like a moderator',
    );
    t.match(
      m.conn.last('state')?.participant,
      { participant_id: ann.participantId, video: false, screen: false },
      'her camera and screen share are off',
    );
    t.equal(await f.hub.setLocks('nowhere', { mic: true, cam: true, camsModeratorsOnly: true }), false);
    t.equal(await f.hub.locks('nowhere'), null);
    t.same(
      f.liveStore.locks.get(mod.meetingId),
      { mic: true, cam: true, camsModeratorsOnly: false },
      'written through',
    );

    // A restart reloads the locks of the open meeting.
    f.engine.restart();
    f.build();
    t.same(
      await f.hub.locks('r1'),
      { mic: true, cam: true, camsModeratorsOnly: false },
      'still locked after a restart',
    );

    // Defaults for a new meeting come from the provider (e.g. the compat module's create call).
    f.hub.setLockDefaults((roomId) => (roomId === 'r3' ? { mic: true } : null));
    f.room({ roomId: 'r3' });
    f.room({ roomId: 'r4' });
    await f.enter('X', 'r3');
    await f.enter('Y', 'r4');
    t.same(await f.hub.locks('r3'), { mic: true, cam: false, camsModeratorsOnly: false });
    t.same(await f.hub.locks('r4'), { mic: false, cam: false, camsModeratorsOnly: false });
    f.hub.setLockDefaults(() => ({ cam: true }));
    t.same(
      await f.hub.locks('r3'),
      { mic: true, cam: false, camsModeratorsOnly: false },
      'a meeting keeps its first settings',
    );
    f.hub.setLockDefaults(() => ({ camsModeratorsOnly: true }));
    f.room({ roomId: 'r5' });
    await f.enter('Z', 'r5');
    t.same(await f.hub.locks('r5'), { mic: false, cam: false, camsModeratorsOnly: true });
  },
);

t.test('signalling goes through the media backend; only admitted, connected members of one meeting', async (t) => {
  const f = new LiveFixture();
  f.room({ roomId: 'r2' });
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const bob = await f.enter('Bob');
  const stranger = await f.enter('Stranger', 'r2');
  const m = await f.connect(mod);
  const a = await f.connect(ann);
  const b = await f.connect(bob);
  const s = await f.connect(stranger);
  const offer = (sdp: string) => ({ description: { type: 'offer', sdp } });

  a.send({ type: 'signal', to: bob.participantId, data: offer(sendrecvOffer) });
  t.same(b.conn.last('signal'), { type: 'signal', from: ann.participantId, data: offer(sendrecvOffer) });
  a.send({ type: 'signal', to: stranger.participantId, data: offer(sendrecvOffer) });
  s.send({ type: 'signal', to: ann.participantId, data: offer(sendrecvOffer) });
  t.equal(s.conn.of('signal').length + a.conn.of('signal').length, 0, 'nothing crosses rooms');
  t.equal(a.conn.of('error').length + s.conn.of('error').length, 0, 'dropped without a word');

  m.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
  await f.settled();
  a.send({ type: 'signal', to: bob.participantId, data: offer(sendrecvOffer) });
  t.equal(a.conn.last('error')?.code, 'locked');
  t.equal(b.conn.of('signal').length, 1, 'not delivered');
  a.send({ type: 'signal', to: bob.participantId, data: offer(recvonlyOffer) });
  t.equal(b.conn.of('signal').length, 2, 'recvonly passes');

  // Bob's socket closes: during the grace period he is present but not connected; nothing reaches him.
  f.disconnect(b);
  a.send({ type: 'signal', to: bob.participantId, data: { candidate: null } });
  t.equal(b.conn.of('signal').length, 2);
  // Ann leaves through the room address while her socket is open: it is closed, and she can no longer send.
  await f.engine.meetings.leave(ann.participantId);
  t.equal(a.conn.closedWith?.code, 1000);
  t.same(m.conn.last('participant_left'), { type: 'participant_left', participant_id: ann.participantId });
});

t.test('the end of the meeting: ended to everyone, sockets closed with 4410, timers and memory dropped', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const bob = await f.enter('Bob');
  const m = await f.connect(mod);
  const a = await f.connect(ann);
  f.disconnect(await f.connect(bob));
  // Each change is handled (its statistics await the store) before the clock moves on.
  a.send({ type: 'state', audio: true, video: true, screen: false });
  await f.settled();
  f.timers.advance(250);
  a.send({ type: 'speaking', speaking: true });
  await f.settled();
  f.timers.advance(1_000);
  t.ok(await f.engine.meetings.end('r1', { kind: 'participant', participantId: mod.participantId }));
  for (const c of [m, a]) {
    t.same(c.conn.last('ended'), { type: 'ended' });
    t.equal(c.conn.closedWith?.code, closeCodes.ended);
  }
  t.equal(f.timers.size, 0, "Bob's pending leave is dropped with the meeting");
  const stats = (await f.stats.of(ann.meetingId)).find((s) => s.participantId === ann.participantId);
  t.match(stats, { talking: false, talkTimeMs: 1_000, audio: false, video: false });
  t.ok(
    stats?.webcams.every((w) => w.endedAt !== null),
    'intervals closed at the end',
  );
  f.disconnect(a);
  t.same(f.errors, [], 'the socket closing afterwards is harmless');
  t.same(f.hub.attendees('r1'), []);
  t.equal(await f.hub.postSystemChat('r1', 'anyone?'), null);
});

t.test('an empty meeting ended by the sweep, after the last socket left', async (t) => {
  const f = new LiveFixture({ meetings: { emptyGraceMs: 0 } });
  const ann = await f.enter('Ann');
  f.disconnect(await f.connect(ann));
  await f.engine.waiting.sweep();
  t.ok(f.engine.meetings.current('r1'), 'open during the socket grace period');
  f.timers.advance(5_000);
  await f.engine.waiting.sweep();
  t.equal(f.engine.meetings.current('r1'), null, 'ended once she left and the room was empty');
});

t.test('waiting-list pushes go to moderators only, once per change, after the change', async (t) => {
  // The daemon's group commit: the knocks of one turn of the event loop share one (each reads its room first).
  const f = new LiveFixture({ defer: (run) => setImmediate(() => void run()) });
  f.room({ roomId: 'w', waitingRoom: 'all' });
  const mod = await f.enter('Mod', 'w', true);
  const m = await f.connect(mod);
  const m2 = await f.connect(await f.enter('Second moderator', 'w', true));
  const guest = await f.engine.waiting.knock(arrive('w', 'Guest', { claims: { role: 'participant', source: 'lms' } }));
  t.equal(guest.status, 'waiting', 'scope all: even an lms arrival waits');
  t.same(await f.engine.waiting.admitAll('w', { kind: 'api', name: 'lms' }), { admitted: 1 });
  const p = await f.connect(f.engine.meetings.present('w').find((x) => x.name === 'Guest')!);
  m.conn.clear();
  m2.conn.clear();
  const knocking = f.engine.waiting.knock(arrive('w', 'Wendy', { note: 'hello' }));
  void f.engine.transactions.flushGrouped();
  t.equal(m.conn.of('waiting_changes').length, 0, 'not pushed inside the change itself');
  t.equal((await knocking).status, 'waiting');
  t.same(
    m.conn.last('waiting_changes')?.added.map((r) => [r.name, r.note]),
    [['Wendy', 'hello']],
  );
  t.same(
    m2.conn.last('waiting_changes')?.added.map((r) => r.name),
    ['Wendy'],
  );
  t.equal(
    p.conn.of('waiting_list').length + p.conn.of('waiting_changes').length,
    0,
    'the admitted participant gets nothing',
  );
  await Promise.all([
    f.engine.waiting.knock(arrive('w', 'Vic', { clientKey: '203.0.113.8' })),
    f.engine.waiting.knock(arrive('w', 'Zoe', { clientKey: '203.0.113.9' })),
  ]);
  await Promise.resolve();
  t.equal(m.conn.of('waiting_changes').length, 2, 'two knocks in one tick: one push');
  t.same(
    m.conn.last('waiting_changes')?.added.map((r) => r.name),
    ['Vic', 'Zoe'],
  );
});

t.test('sub-groups: create, move, away presence, bring back', async (t) => {
  const f = new LiveFixture({ live: { awayGraceMs: 60_000 } });
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const bob = await f.enter('Bob');
  const m = await f.connect(mod);
  const a = await f.connect(ann);
  const b = await f.connect(bob);

  m.send({ type: 'create_subgroups', count: 21 });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'invalid_message', 'at most 20');
  m.send({ type: 'create_subgroups', count: 2 });
  await f.settled();
  t.same(a.conn.last('subgroups')?.subgroups, ['r1-g1', 'r1-g2']);
  t.equal(f.engine.store.rooms.get('r1-g1')?.parentRoomId, 'r1');
  m.send({ type: 'create_subgroups', count: 3 });
  await f.settled();
  t.same(a.conn.last('subgroups')?.subgroups, ['r1-g1', 'r1-g2', 'r1-g3'], 'more groups add to the existing ones');
  f.room({ roomId: 'r1-g4' });
  m.send({ type: 'create_subgroups', count: 4 });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'room_exists', 'a room of that name that is not a sub-group is not taken over');

  m.send({ type: 'move', participant_id: ann.participantId, room_id: 'r1-g1' });
  await f.settled();
  m.send({ type: 'move', participant_id: bob.participantId, room_id: 'r1-g2' });
  await f.settled();
  t.same(a.conn.last('move'), { type: 'move', room_id: 'r1-g1' });
  m.send({ type: 'move', participant_id: ann.participantId, room_id: 'r1' });
  await f.settled();
  t.equal(m.conn.last('error')?.code, 'invalid_message', 'not into the room she is in');

  // Ann goes: her class session opens the sub-group; her class socket closes.
  const annG1 = await f.engine.waiting.start(arrive('r1-g1', 'ignored', { fromParticipantId: ann.participantId }));
  t.equal(annG1.status, 'joined');
  f.disconnect(a);
  const ag = await f.connect(annG1.status === 'joined' ? annG1.participant : ann);
  t.equal(ag.conn.last('welcome')?.room_id, 'r1-g1');
  t.same(ag.conn.last('welcome')?.subgroups, ['r1-g1', 'r1-g2', 'r1-g3']);
  f.timers.advance(5_000);
  t.equal(f.leftAt(ann), null, 'away in a sub-group is still present in the class');
  t.same(
    f.hub
      .attendees('r1')
      .map((x) => x.name)
      .sort(),
    ['Bob', 'Mod'],
    'but not listed as an attendee of the class',
  );
  f.timers.advance(60_000);
  t.equal(f.leftAt(ann), null, 'still present while a sub-group meeting is open');

  // Bob was told to move but never arrives anywhere: while no sub-group had a meeting... g1 has one now,
  // so Bob stays too; bring_back settles everyone.
  f.disconnect(b);
  m.send({ type: 'bring_back' });
  await f.settled();
  t.same(ag.conn.last('move'), { type: 'move', room_id: 'r1' });
  t.equal(m.conn.of('move').length, 0, 'the class itself is not moved');
  f.disconnect(ag);
  const aBack = await f.connect(ann);
  t.equal(aBack.conn.last('welcome')?.room_id, 'r1');
  f.timers.advance(60_000);
  t.equal(f.leftAt(ann), null, 'Ann came back');
  t.match(f.leftAt(bob), /^\d{4}-/, 'Bob, who did not, has left the class');
  t.match(
    f.engine.store.participants.get(annG1.status === 'joined' ? annG1.participant.participantId : '')?.leftAt,
    /^\d{4}-/,
    "Ann's sub-group presence ended after its grace period",
  );
});

t.test('away participants leave the class when the last sub-group meeting ends', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const m = await f.connect(mod);
  const a = await f.connect(ann);
  m.send({ type: 'create_subgroups', count: 1 });
  await f.settled();
  m.send({ type: 'move', participant_id: ann.participantId, room_id: 'r1-g1' });
  await f.settled();
  const inGroup = await f.engine.waiting.start(arrive('r1-g1', 'x', { fromParticipantId: ann.participantId }));
  f.disconnect(a);
  t.equal(inGroup.status, 'joined');
  await f.engine.meetings.end('r1-g1');
  t.match(f.leftAt(ann), /^\d{4}-/, 'the sub-group is over and she did not come back: she left');

  // Someone moved who never starts the sub-group leaves after the away grace period.
  const bob = await f.connect(await f.enter('Bob'));
  m.send({ type: 'move', participant_id: bob.participant.participantId, room_id: 'r1-g1' });
  await f.settled();
  f.disconnect(bob);
  f.timers.advance(59_999);
  t.equal(f.leftAt(bob.participant), null);
  f.timers.advance(1);
  t.match(f.leftAt(bob.participant), /^\d{4}-/);
});

t.test('a moderator inside a sub-group moves people between the family of rooms', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const m = await f.connect(mod);
  m.send({ type: 'create_subgroups', count: 2 });
  await f.settled();
  // (With a moderator's join token: entering with the class session alone makes a participant of the sub-group.)
  const modG1 = await f.engine.waiting.start(arrive('r1-g1', 'Mod', { claims: claims('moderator') }));
  const annClass = await f.enter('Ann');
  const annG1 = await f.engine.waiting.start(arrive('r1-g1', 'Ann', { fromParticipantId: annClass.participantId }));
  if (modG1.status !== 'joined' || annG1.status !== 'joined') throw new Error('not joined');
  const mg = await f.connect(modG1.participant);
  const ag = await f.connect(annG1.participant);
  t.equal(modG1.participant.role, 'moderator');
  mg.send({ type: 'move', participant_id: annG1.participant.participantId, room_id: 'r1-g2' });
  await f.settled();
  t.same(ag.conn.last('move'), { type: 'move', room_id: 'r1-g2' }, 'to a sibling');
  mg.send({ type: 'move', participant_id: annG1.participant.participantId, room_id: 'r1' });
  await f.settled();
  t.same(ag.conn.last('move'), { type: 'move', room_id: 'r1' }, 'back to the class');
  mg.send({ type: 'create_subgroups', count: 3 });
  await f.settled();
  t.same(
    m.conn.last('subgroups')?.subgroups,
    ['r1-g1', 'r1-g2', 'r1-g3'],
    'created under the class, told to the whole family',
  );
  t.same(ag.conn.last('subgroups')?.subgroups, ['r1-g1', 'r1-g2', 'r1-g3']);
  mg.send({ type: 'bring_back' });
  await f.settled();
  t.same(
    mg.conn.last('move'),
    { type: 'move', room_id: 'r1' },
    'bring_back from inside a group moves everyone in groups, herself too',
  );
});

t.test('attendees: present participants with their reported media', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  (await f.connect(mod)).send({ type: 'state', audio: true, video: false, screen: false });
  t.same(f.hub.attendees('r1'), [
    {
      participantId: mod.participantId,
      name: 'Mod',
      role: 'moderator',
      audio: true,
      video: false,
      screen: false,
      connected: true,
    },
    {
      participantId: ann.participantId,
      name: 'Ann',
      role: 'participant',
      audio: false,
      video: false,
      screen: false,
      connected: false,
    },
  ]);
});

t.test('the media backend is pluggable and told of the lifecycle', async (t) => {
  const calls: string[] = [];
  const backend: MediaBackend = {
    name: 'test',
    kindFor: () => 'mesh',
    relaySignal: (from, to) => {
      calls.push(`relay ${from === to}`);
      return { ok: false, code: 'invalid_signal', message: 'no' };
    },
    connected: () => calls.push('connected'),
    disconnected: () => calls.push('disconnected'),
    locksChanged: (_, locks) => calls.push(`locks ${locks.mic}`),
    meetingEnded: () => calls.push('ended'),
  };
  const f = new LiveFixture({ media: () => backend });
  t.equal(f.hub.mediaBackend.name, 'test');
  const mod = await f.enter('Mod', 'r1', true);
  const m = await f.connect(mod);
  m.send({ type: 'signal', to: mod.participantId, data: {} });
  t.equal(m.conn.last('error')?.code, 'invalid_signal', "the backend's refusal reaches the sender");
  m.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
  await f.settled();
  f.disconnect(m);
  await f.engine.meetings.end('r1');
  t.same(calls, ['connected', 'relay true', 'locks true', 'disconnected', 'ended']);
});

t.test('failures are reported, never thrown into the socket', async (t) => {
  const f = new LiveFixture();
  const mod = await f.enter('Mod', 'r1', true);
  const ann = await f.enter('Ann');
  const m = await f.connect(mod);
  const a = await f.connect(ann);
  m.conn.failing = true;
  t.doesNotThrow(() => a.send({ type: 'chat', text: 'hello' }));
  // The chat is stored before the room is told.
  await f.settled();
  t.equal(f.errors.length, 1);
  t.equal(f.errors[0]?.context, 'message');
});

t.test('close(): timers stop, nobody leaves, running statistics end', async (t) => {
  const f = new LiveFixture();
  const ann = await f.enter('Ann');
  const bob = await f.enter('Bob');
  const a = await f.connect(ann);
  f.disconnect(await f.connect(bob));
  a.send({ type: 'state', audio: false, video: true, screen: false });
  await f.settled();
  f.timers.advance(2_000);
  const closedAt = f.engine.clock.now().toISOString();
  await f.hub.close();
  await f.hub.close();
  t.equal(f.timers.size, 0);
  f.disconnect(a);
  f.timers.advance(60_000);
  t.equal(f.leftAt(ann), null, 'a shutdown is not a leave');
  t.equal(f.leftAt(bob), null);
  const stats = (await f.stats.of(ann.meetingId)).find((s) => s.participantId === ann.participantId);
  t.match(stats, { video: false });
  t.equal(stats?.webcams[0]?.endedAt, closedAt, 'the interval ends at the shutdown');
  const late = new FakeConnection();
  t.equal(
    f.hub.connect(
      { room: 'r1', meeting: ann.meetingId, participant: ann.participantId, role: 'participant', name: 'Ann' },
      late,
    ),
    null,
  );
  t.equal(late.closedWith?.code, 4401, 'a closed hub takes no connection');
});
