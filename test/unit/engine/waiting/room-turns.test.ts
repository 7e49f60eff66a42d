// Each room's decisions take turns (issue 34 point 2: KeyedQueue): once a decision awaits the
// store, a second decision on the same request must not start from what memory said before the
// first was applied, while another room's decisions go on meanwhile. The store here answers the
// participant insert of room A only when the test opens a gate, and its units of work run side
// by side as PostgreSQL's transactions do (the memory fixture's take turns, as SQLite's).
import t from 'tap';
import type { UnitOfWork } from '../../../../src/engine/unit-of-work.js';
import type { Participant } from '../../../../src/engine/meetings/meeting.js';
import { asyncOf } from '../../../helpers/async-of.js';
import { Fixture, api, arrive, by } from '../../../helpers/engine-fixture.js';
import { MemoryStore } from '../../../helpers/memory-store.js';
import { engineOn } from '../../../helpers/sqlite-engine.js';

/** The memory store, but the first participant insert of room `held` waits for `open()`. */
class HeldStore extends MemoryStore {
  holding = false;
  readonly reached: string[] = [];
  private release: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));

  open(): void {
    this.holding = false;
    this.release();
  }

  insertParticipantHeld(participant: Participant): Promise<void> | void {
    this.reached.push(participant.roomId);
    if (!this.holding || participant.roomId !== 'a') return this.insertParticipant(participant);
    return this.gate.then(() => this.insertParticipant(participant));
  }
}

/** Units of work side by side (no turns, nothing to roll back): each room's turn is all that orders them. */
const sideBySide: UnitOfWork<'async'> = { run: (work) => work() };

async function scene() {
  const f = new Fixture();
  const store = new HeldStore();
  // The rooms come from the fixture's helper, into this store.
  for (const roomId of ['a', 'b']) store.rooms.set(roomId, { ...f.room({ roomId }) });
  const meetings = asyncOf(store);
  const port = new Proxy(meetings, {
    get: (target, key) =>
      key === 'insertParticipant'
        ? (p: Participant) => Promise.resolve(store.insertParticipantHeld(p))
        : (Reflect.get(target, key) as unknown),
  });
  const engine = await engineOn(
    { meetings: port, waitingRequests: asyncOf(store), rooms: asyncOf(store), unitOfWork: sideBySide },
    f.clock,
  );
  const mods = new Map<string, Participant>();
  const waiting = new Map<string, string>();
  for (const roomId of ['a', 'b']) {
    const mod = await engine.transactions.atomically(async () =>
      engine.meetings.join(await engine.meetings.ensure(roomId), 'moderator', `Mod ${roomId}`),
    );
    mods.set(roomId, mod);
    const knock = await engine.waiting.knock(arrive(roomId, `Guest ${roomId}`, { clientKey: `198.51.100.${roomId}` }));
    if (knock.status !== 'waiting') throw new Error(`expected to wait, got ${knock.status}`);
    waiting.set(roomId, knock.requestId);
  }
  return { f, store, engine, mod: (roomId: string) => by(mods.get(roomId)!.participantId), waiting };
}

/** Whether `promise` settled once the work that is ready now has run. */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

t.test(
  "two decisions on one request of room A take turns while A's store call is held; room B's is not kept waiting",
  async (t) => {
    const { store, engine, mod, waiting } = await scene();
    const a = waiting.get('a')!;
    store.holding = true;
    const admitted = engine.waiting.admit('a', a, mod('a'));
    const refused = engine.waiting.refuse('a', a, false, mod('a'));
    // Neither rejection may go unobserved while the gate is shut.
    refused.catch(() => undefined);
    const other = engine.waiting.admit('b', waiting.get('b')!, mod('b'));

    t.same(await other, { admitted: 1 }, "room B's decision is answered while room A's store call is held");
    t.notOk(await settledNow(admitted), "A's admission waits for its store call");
    t.notOk(await settledNow(refused), "A's refusal waits for the admission's turn to end, not for nothing");
    t.same(store.reached, ['a', 'b', 'a', 'b'], "A's insert was reached (held), B's went through");

    store.open();
    t.same(await admitted, { admitted: 1 }, 'the admission is applied');
    await t.rejects(
      refused,
      { code: 'request_not_waiting', message: 'this request was admitted already' },
      "the refusal sees the admission's result: already decided",
    );
    t.equal(store.requests.get(a)?.state, 'admitted', 'the store holds one outcome');
    t.same(
      (await engine.meetings.timeline('a')).map((e) => e.kind).filter((k) => k === 'admit' || k === 'refuse'),
      ['admit'],
      'and the timeline one decision',
    );
  },
);

t.test('a decision asked for inside a transaction is refused at once, and decides nothing', async (t) => {
  const f = new Fixture();
  f.room();
  const { requestId, secret } = await f.knock('Ann');
  await t.rejects(
    f.transactions.atomically(() => f.waiting.admit('r1', requestId, api())),
    /the turn of r1 was asked for inside a transaction/,
  );
  t.same(await f.waiting.poll('r1', secret), { status: 'waiting' }, 'she still waits');
  t.same(await f.kinds(), ['knock']);
  t.same(await f.waiting.admit('r1', requestId, api()), { admitted: 1 }, 'the same decision outside one is applied');
});

// The knock's path chains its steps instead of awaiting them (fewer promises per knock): its
// screening and its place in the group commit must still happen in the room's turn, after the
// decision that holds it, and the knocks must keep their order.
t.test(
  "two knocks of room A while a decision holds A's turn: both wait for it, then are written in knock order",
  async (t) => {
    const { store, engine, mod, waiting } = await scene();
    store.holding = true;
    const admitted = engine.waiting.admit('a', waiting.get('a')!, mod('a'));
    const second = engine.waiting.knock(arrive('a', 'Second', { clientKey: '198.51.100.20' }));
    const third = engine.waiting.knock(arrive('a', 'Third', { clientKey: '198.51.100.21' }));
    const other = engine.waiting.knock(arrive('b', 'Elsewhere', { clientKey: '198.51.100.22' }));
    t.match(await other, { status: 'waiting' }, "room B's knock is answered meanwhile");
    t.notOk(await settledNow(second), 'the first knock of A waits for the decision holding its turn');
    t.notOk(await settledNow(third), 'and so does the second');
    t.same(
      [...store.requests.values()].filter((r) => r.name === 'Second' || r.name === 'Third'),
      [],
      'neither is written while the turn is held',
    );

    store.open();
    t.same(await admitted, { admitted: 1 });
    const [a, b] = [await second, await third];
    t.match(a, { status: 'waiting' });
    t.match(b, { status: 'waiting' });
    t.same(
      (await engine.waiting.list('a', mod('a'))).map((item) => item.name),
      ['Second', 'Third'],
      'the first guest was admitted; the two knocks wait in the order they came',
    );
  },
);
