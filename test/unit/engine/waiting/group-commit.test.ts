// Group commit of knocks: the knocks of one turn share one commit, nobody is answered or shown
// before it, a failed commit takes everything of the group back, and every other write sees
// the queued knocks first.
import t from 'tap';
import { Fixture, api, arrive, by, claims } from '../../../helpers/engine-fixture.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A fixture whose queued writes are committed only when the test says so. A knock reads its room
 * before it is queued, so the turn ends once what was started in it has been queued.
 */
function handDriven(options: ConstructorParameters<typeof Fixture>[0] = {}) {
  const turns: (() => Promise<number>)[] = [];
  const f = new Fixture({ ...options, defer: (run) => turns.push(run) });
  const endTurn = async () => {
    await tick();
    for (const run of turns.splice(0)) void run();
  };
  return { f, endTurn };
}

/** Tracks whether a promise settled, without awaiting it. */
function watch<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

t.test('the knocks of one turn share one commit; none is answered, polled or listed before it', async (t) => {
  const { f, endTurn } = handDriven();
  f.room();
  const mod = await f.moderator();
  const commitsBefore = f.store.commits;
  const knocks = ['Ann', 'Bob', 'Cy'].map((name) =>
    watch(f.waiting.knock(arrive('r1', name, { note: `${name} here` }))),
  );
  await tick();
  t.ok(
    knocks.every((k) => !k.settled),
    'no answer before the commit',
  );
  t.equal(f.store.requests.size, 0, 'nothing written yet');
  t.same(await f.waiting.list('r1', by(mod.participantId)), [], 'moderators see nobody yet');
  t.equal(f.store.commits, commitsBefore, 'no commit yet');

  await endTurn();
  await tick();
  t.equal(f.store.commits, commitsBefore + 1, 'one commit for the three knocks');
  t.ok(
    knocks.every((k) => k.settled && k.error === undefined),
    'all three answered after it',
  );
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((i) => i.name),
    ['Ann', 'Bob', 'Cy'],
    'listed in knock order',
  );
  t.same(await f.kinds(), ['moderator_arrived', 'knock', 'knock', 'knock']);
  for (const k of knocks) {
    const result = k.value!;
    t.same(
      await f.waiting.poll('r1', result.status === 'waiting' ? result.secret : ''),
      { status: 'waiting' },
      'each cookie polls waiting',
    );
  }
});

t.test('a failed commit answers every knock of the group with the error and leaves nothing behind', async (t) => {
  const { f, endTurn } = handDriven();
  f.room();
  f.room({ roomId: 'r2' });
  const changes: string[] = [];
  f.waiting.onWaitingListChange((roomId) => changes.push(roomId));
  f.store.commitError = new Error('database or disk is full');
  const first = [watch(f.waiting.knock(arrive('r1', 'Ann'))), watch(f.waiting.knock(arrive('r2', 'Bob')))];
  await endTurn();
  await tick();
  t.ok(
    first.every((k) => k.settled),
    'both answered',
  );
  t.ok(
    first.every((k) => (k.error as Error | undefined)?.message === 'database or disk is full'),
    'both with the commit error',
  );
  t.equal(f.store.requests.size + f.store.meetings.size + f.store.timeline.length, 0, 'nothing on "disk"');
  t.equal(f.meetings.current('r1'), null, 'the meeting the group started is gone from memory too');
  t.equal(f.meetings.current('r2'), null);
  t.same(changes, [], 'moderators were never told of them');
  t.same(await f.waiting.list('r1', api()), []);

  // The next group commits as if nothing happened, and holds only its own knock.
  f.store.commitError = null;
  const again = watch(f.waiting.knock(arrive('r1', 'Cy')));
  await endTurn();
  await tick();
  t.equal(again.value?.status, 'waiting');
  t.same(
    (await f.waiting.list('r1', api())).map((i) => i.name),
    ['Cy'],
  );
  t.same(await f.kinds(), ['knock']);
});

t.test('a failed commit in an open meeting keeps the meeting and drops only the group', async (t) => {
  const { f, endTurn } = handDriven();
  f.room();
  const mod = await f.moderator();
  const waiting = watch(f.waiting.knock(arrive('r1', 'Ann')));
  await endTurn();
  await tick();
  t.equal(waiting.value?.status, 'waiting');
  f.store.commitError = new Error('disk I/O error');
  const lost = [watch(f.waiting.knock(arrive('r1', 'Bob'))), watch(f.waiting.knock(arrive('r1', 'Cy')))];
  await endTurn();
  await tick();
  t.ok(
    lost.every((k) => k.error instanceof Error),
    'both knocks of the group fail',
  );
  f.store.commitError = null;
  t.ok(f.meetings.current('r1'), 'the meeting is still open');
  t.same(
    (await f.waiting.list('r1', by(mod.participantId))).map((i) => i.name),
    ['Ann'],
    'the list holds only what was committed',
  );
  t.equal([...f.store.requests.values()].length, 1);
});

t.test('ending the meeting commits the queued knocks first: they expire with it', async (t) => {
  const { f, endTurn } = handDriven();
  f.room();
  const mod = await f.moderator();
  const knocks = [watch(f.waiting.knock(arrive('r1', 'Ann'))), watch(f.waiting.knock(arrive('r1', 'Bob')))];
  // Queued for their group, not committed: the end commits them first.
  await tick();
  const commits = f.store.commits;
  t.ok(await f.meetings.end('r1', by(mod.participantId)));
  await tick();
  t.equal(f.store.commits, commits + 2, 'the queued group, then the end');
  t.ok(
    knocks.every((k) => k.value?.status === 'waiting'),
    'the knocks were committed and answered',
  );
  t.same(
    [...f.store.requests.values()].map((r) => [r.name, r.state]),
    [
      ['Ann', 'expired'],
      ['Bob', 'expired'],
    ],
    'nobody is left waiting in the closed meeting',
  );
  t.same(
    f.store.timeline.map((e) => e.kind),
    ['moderator_arrived', 'knock', 'knock', 'expire', 'expire', 'meeting_ended'],
  );
  await endTurn();
});

t.test('a moderator arriving in until_moderator mode admits the knocks queued before her', async (t) => {
  const { f, endTurn } = handDriven();
  f.room({ waitingRoomMode: 'until_moderator' });
  const ann = watch(f.waiting.knock(arrive('r1', 'Ann')));
  await f.waiting.start(arrive('r1', 'Mod', { claims: claims('moderator') }));
  await tick();
  t.equal(ann.value?.status, 'waiting', 'her knock was answered');
  const secret = ann.value?.status === 'waiting' ? ann.value.secret : '';
  t.equal((await f.waiting.poll('r1', secret))?.status, 'admitted', 'and the moderator let her in');
  t.same(await f.kinds(), ['knock', 'moderator_arrived', 'admit_all']);
  await endTurn();
});

t.test('disabling the waiting room admits the knocks queued before it', async (t) => {
  const { f, endTurn } = handDriven();
  f.room();
  const mod = await f.moderator();
  const ann = watch(f.waiting.knock(arrive('r1', 'Ann')));
  t.same(await f.waiting.disableWaitingRoom('r1', by(mod.participantId)), { admitted: 1 });
  await tick();
  const secret = ann.value?.status === 'waiting' ? ann.value.secret : '';
  t.equal((await f.waiting.poll('r1', secret))?.status, 'admitted');
  await endTurn();
});

t.test('the sweep commits queued knocks before it judges the meeting empty', async (t) => {
  const { f, endTurn } = handDriven({ meetings: { emptyGraceMs: 0 } });
  f.room();
  const ann = watch(f.waiting.knock(arrive('r1', 'Ann')));
  await f.waiting.sweep();
  await tick();
  t.equal(ann.value?.status, 'waiting');
  t.ok(f.meetings.current('r1'), 'the meeting stays open: someone is waiting');
  await endTurn();
});

t.test('a knock whose room is deleted before the commit is answered room_not_found and not written', async (t) => {
  const { f, endTurn } = handDriven();
  f.room();
  f.room({ roomId: 'r2' });
  const doomed = f.waiting.knock(arrive('r1', 'Ann'));
  const other = f.waiting.knock(arrive('r2', 'Bob'));
  // Both queued for the group; then the room goes.
  await tick();
  f.store.rooms.delete('r1');
  f.waiting.roomDeleted('r1');
  f.meetings.roomDeleted('r1');
  await endTurn();
  await t.rejects(doomed, { code: 'room_not_found' });
  t.equal((await other).status, 'waiting', 'the rest of the group is committed');
  t.same(
    [...f.store.requests.values()].map((r) => r.name),
    ['Bob'],
  );
  t.equal(f.meetings.current('r1'), null);
});

t.test('queued knocks hold their slots: the cap counts them', async (t) => {
  const { f, endTurn } = handDriven({ waiting: { maxOpenRequests: 2 } });
  f.room();
  const a = f.waiting.knock(arrive('r1', 'A'));
  const b = f.waiting.knock(arrive('r1', 'B'));
  await t.rejects(
    f.waiting.knock(arrive('r1', 'C')),
    { code: 'waiting_room_full' },
    'the third of one turn is refused',
  );
  await endTurn();
  t.equal((await a).status, 'waiting');
  t.equal((await b).status, 'waiting');
  await t.rejects(f.waiting.knock(arrive('r1', 'D')), { code: 'waiting_room_full' }, 'and after the commit too');
});
