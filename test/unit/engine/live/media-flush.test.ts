// Issue 28 point 1, the shape under a fake clock: a member's media state is a value the room
// hears at most every 250 ms (an undone toggle sends and writes nothing), a socket beyond its
// allowance is told once and then closed, statistics go through the group commit, one message
// object per broadcast, and a room's budget keeps one room's flood from the others.
import t from 'tap';
import { liveDefaults } from '../../../../src/engine/live/live-options.js';
import type { Outbox } from '../../../../src/engine/live/outbox.js';
import type { Participant } from '../../../../src/engine/meetings/meeting.js';
import { parseClientMessage } from '../../../../src/http/live/client-messages.js';
// A namespace import, so this file also loads against the code from before the limits (to see it fail there).
import * as protocol from '../../../../src/protocol/live.js';
import type { ServerMessage } from '../../../../src/protocol/live.js';
import { LiveFixture, type Client } from '../../../helpers/live-fixture.js';

const video = (on: boolean) => ({ type: 'state', audio: false, video: on, screen: false });
/** Limits out of the way of the rule a test is about. */
const roomy = { mediaLimit: { count: 10_000, windowMs: 10_000 }, messageLimit: { count: 10_000, windowMs: 10_000 } };

t.test('the defaults: a few changes a second per socket, flushes four times a second', async (t) => {
  t.same(liveDefaults.mediaLimit, { count: 60, windowMs: 10_000 });
  t.equal(liveDefaults.stateFlushMs, 250);
});

t.test(
  "a member's state goes out at most every 250 ms, the latest value; an undone toggle sends nothing",
  async (t) => {
    const f = new LiveFixture({ live: roomy });
    const m = await f.connect(await f.enter('Mod', 'r1', true));
    const a = await f.connect(await f.enter('Ann'));
    const ann = a.participant.participantId;
    const heard = () => m.conn.of('state').filter((s) => s.participant.participant_id === ann);

    a.send(video(true));
    t.same(
      heard().map((s) => s.participant.video),
      [true],
      'the first change after a quiet spell goes out at once',
    );
    // 2 s of a toggle every 5 ms: 400 changes.
    for (let i = 0; i < 400; i++) {
      f.timers.advance(5);
      a.send(video(i % 2 === 0 ? false : true));
    }
    f.timers.advance(250);
    t.ok(
      heard().length <= 1 + 2_250 / 250,
      `${heard().length} state messages for 401 changes in 2.25 s: at most one per 250 ms`,
    );
    t.equal(heard().at(-1)?.participant.video, true, 'the last one says the latest value');
    t.same(f.hub.attendees('r1').find((p) => p.participantId === ann)?.video, true, 'memory holds the latest at once');

    await f.settled();
    const before = heard().length;
    const writes = f.liveStore.writes;
    const webcams = f.liveStore.webcams.length;
    f.timers.advance(1_000);
    a.send(video(false));
    t.equal(heard().length, before + 1, 'a change after a quiet spell goes out at once…');
    a.send(video(true));
    a.send(video(false));
    f.timers.advance(250);
    // The flush's statistics await the store.
    await f.settled();
    t.equal(heard().length, before + 1, '…and one undone before the next flush sends nothing');
    t.equal(f.liveStore.webcams.length, webcams, 'no webcam interval for the undone one');
    t.equal(f.liveStore.writes, writes + 1, 'one write, for the change that went out');
  },
);

t.test('speaking is coalesced the same way, and never without audio', async (t) => {
  const f = new LiveFixture({ live: roomy });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  a.send({ type: 'state', audio: true, video: false, screen: false });
  for (let i = 0; i < 40; i++) a.send({ type: 'speaking', speaking: i % 2 === 0 });
  f.timers.advance(250);
  t.same(m.conn.of('speaking'), [], 'forty flickers ending where they began: nothing');
  a.send({ type: 'speaking', speaking: true });
  a.send({ type: 'state', audio: false, video: false, screen: false });
  f.timers.advance(250);
  t.same(m.conn.of('speaking'), [], 'speaking undone by muting before the flush: nothing');
  t.match(m.conn.last('state')?.participant, { audio: false });
});

t.test(
  'beyond its allowance a socket is told rate_limited once, then dropped messages go unanswered, then it is closed',
  async (t) => {
    const f = new LiveFixture({ live: { mediaLimit: { count: 5, windowMs: 1_000 } } });
    const a = await f.connect(await f.enter('Ann'));
    for (let i = 0; i < 10; i++) a.send(video(i % 2 === 0));
    t.same(
      a.conn.of('error').map((e) => e.code),
      ['rate_limited'],
      'one refusal for five messages beyond the limit',
    );
    t.equal(a.conn.closedWith, null, 'still open');
    a.send(video(true));
    t.same(
      a.conn.closedWith,
      { code: protocol.floodCloseCode, reason: 'too many messages' },
      'twice the allowance: closed',
    );
    f.disconnect(a);

    const b = await f.connect(await f.enter('Bob'));
    for (let i = 0; i < 5; i++) b.send(video(i % 2 === 0));
    f.timers.advance(1_000);
    for (let i = 0; i < 5; i++) b.send(video(i % 2 === 0));
    t.same(
      b.conn.of('error'),
      [],
      'the allowance is per window: a person toggling a few times a second is never refused',
    );
    t.equal(b.conn.closedWith, null);
  },
);

t.test('the message window of every kind: told once, then closed at twice its count', async (t) => {
  const f = new LiveFixture({ live: { messageLimit: { count: 3, windowMs: 1_000 } } });
  const a = await f.connect(await f.enter('Ann'));
  for (let i = 0; i < 6; i++) a.send({ type: 'view', video: [] });
  t.same(
    a.conn.of('error').map((e) => e.code),
    ['rate_limited'],
  );
  t.equal(a.conn.closedWith, null);
  a.send({ type: 'view', video: [] });
  t.equal(a.conn.closedWith?.code, protocol.floodCloseCode);
});

t.test('statistics of media go through the group commit: one transaction for a flush of many members', async (t) => {
  const deferred: (() => Promise<number>)[] = [];
  const f = new LiveFixture({ live: roomy, statsDefer: (run) => void deferred.push(run) });
  /** The groups queued so far commit, once the messages handled so far queued their writes (they await the store). */
  const runDeferred = async () => {
    await f.settled();
    await Promise.all(deferred.splice(0).map((run) => run()));
  };
  const clients: Client[] = [];
  for (let i = 0; i < 20; i++) clients.push(await f.connect(await f.enter(`Member ${i}`)));
  await runDeferred();
  const store = f.liveStore;
  store.transactions = 0;

  f.timers.advance(1_000);
  clients[0]!.send(video(true));
  await runDeferred();
  t.equal(store.transactions, 1, 'the first change: one transaction');
  for (const c of clients) for (let i = 0; i < 7; i++) c.send(video(i % 2 === 0));
  await f.settled();
  t.equal(store.transactions, 1, 'nothing is written per toggle');
  f.timers.advance(250);
  await f.settled();
  t.equal(deferred.length, 1, 'the flush queued the latest states in one group');
  await runDeferred();
  t.equal(store.transactions, 2, '140 toggles of 20 members: one more transaction');
  t.equal(store.webcams.filter((w) => w.endedAt === null).length, 20, 'an interval open for each member');
  t.equal(
    (await f.stats.of(clients[5]!.participant.meetingId)).filter((s) => s.video).length,
    20,
    'and the statistics read them back',
  );
});

/** An outbox that keeps the very objects it is given. */
class SameObjects implements Outbox {
  readonly sent: ServerMessage[] = [];
  send(message: ServerMessage): void {
    this.sent.push(message);
  }
  close(): void {}
}

function connectKeeping(
  f: LiveFixture,
  p: Participant,
): { out: SameObjects; send(message: Record<string, unknown>): void } {
  const out = new SameObjects();
  const claims = { room: p.roomId, meeting: p.meetingId, participant: p.participantId, role: p.role, name: p.name };
  const session = f.hub.connect(claims, out)!;
  return { out, send: (message) => session.receive(parseClientMessage(JSON.stringify(message))) };
}

t.test('a broadcast is one message object for every recipient, so the socket code serialises it once', async (t) => {
  const f = new LiveFixture({ live: roomy });
  const all: ReturnType<typeof connectKeeping>[] = [];
  for (const name of ['Ann', 'Bob', 'Cem', 'Dan']) all.push(connectKeeping(f, await f.enter(name)));
  // Their welcomes are the sockets' first tasks.
  await f.settled();
  f.timers.advance(1_000);
  all[0]!.send(video(true));
  const states = all.map(({ out }) => out.sent.filter((m) => m.type === 'state').at(-1));
  t.ok(states[0], 'a state went out');
  t.ok(
    states.every((m) => m === states[0]),
    'the same object to each of the four',
  );
});

t.test(
  "a room's budget: its flushes come further apart as they deliver more, and other rooms do not wait",
  async (t) => {
    const f = new LiveFixture({ live: { ...roomy, roomSendsPerSecond: 100 } });
    f.room({ roomId: 'r2', name: 'Room two' });
    const crowd: Client[] = [];
    for (let i = 0; i < 10; i++) crowd.push(await f.connect(await f.enter(`Member ${i}`)));
    const bob = await f.connect(await f.enter('Bob', 'r2'));
    const carol = await f.connect(await f.enter('Carol', 'r2'));
    const watcher = crowd[0]!;
    const count = () => watcher.conn.of('state').length;

    crowd[1]!.send(video(true));
    const first = count();
    // Everyone of r1 changes: one flush delivers 10 x 10 = 100 messages, a second of the budget.
    for (const c of crowd) c.send(video(!c.participant.name.endsWith('1')));
    f.timers.advance(250);
    const afterFlush = count();
    t.equal(afterFlush - first, 10, 'the flush tells the room of all ten');
    crowd[1]!.send(video(true));
    f.timers.advance(500);
    t.equal(count(), afterFlush, 'the next flush waits while the budget of the last one runs');
    bob.send(video(true));
    t.equal(carol.conn.of('state').length, 1, 'another room is told at once meanwhile');
    f.timers.advance(500);
    t.equal(count(), afterFlush + 1, 'then the latest value goes out');
  },
);

t.test("a room's message budget: beyond it the room's messages are dropped, each sender told once", async (t) => {
  const f = new LiveFixture({ live: { ...roomy, roomMessageLimit: { count: 10, windowMs: 1_000 } } });
  f.room({ roomId: 'r2', name: 'Room two' });
  const crowd: Client[] = [];
  for (const i of [0, 1, 2]) crowd.push(await f.connect(await f.enter(`Member ${i}`)));
  for (const c of crowd) for (let i = 0; i < 5; i++) c.send({ type: 'view', video: [] });
  t.same(
    crowd.map((c) => c.conn.of('error').length),
    [0, 0, 1],
    'ten pass; the third sender is told once',
  );
  for (const c of crowd) c.send({ type: 'view', video: [] });
  t.same(
    crowd.map((c) => c.conn.of('error').length),
    [1, 1, 1],
    'each sender is told once a window',
  );
  t.ok(
    crowd.every((c) => c.conn.closedWith === null),
    'the room budget closes nobody: their own sockets kept to their allowance',
  );
  const other = await f.connect(await f.enter('Eve', 'r2'));
  other.send({ type: 'view', video: [] });
  t.same(other.conn.of('error'), [], 'another room has its own budget');
  f.timers.advance(1_000);
  crowd[0]!.send({ type: 'view', video: [] });
  t.equal(crowd[0]!.conn.of('error').length, 1, 'the next window lets the room speak again');
});

t.test('an arrival between a change and its flush starts where the room is, and converges with it', async (t) => {
  const f = new LiveFixture({ live: roomy });
  const a = await f.connect(await f.enter('Ann'));
  const ann = a.participant.participantId;
  /** What Bob's page believes of Ann's video: the last state he heard, else his welcome. */
  const bobSees = (bob: Client) =>
    (
      bob.conn
        .of('state')
        .filter((m) => m.participant.participant_id === ann)
        .at(-1)?.participant ?? bob.conn.last('welcome')?.participants.find((p) => p.participant_id === ann)
    )?.video;
  const actual = () => f.hub.attendees('r1').find((p) => p.participantId === ann)?.video;

  a.send(video(true));
  a.send(video(false));
  const bob = await f.connect(await f.enter('Bob'));
  t.equal(bobSees(bob), true, 'the welcome says what the room was told, not the change still pending');
  a.send(video(true));
  f.timers.advance(250);
  t.equal(actual(), true);
  t.equal(bobSees(bob), true, 'the change undone before the flush: Bob agrees with the room');

  a.send(video(false));
  f.timers.advance(250);
  t.equal(bobSees(bob), false, 'and the next change reaches him like everyone');
});
