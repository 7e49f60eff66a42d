import t from 'tap';
import type { Participant } from '../../../../src/engine/meetings/meeting.js';
import { ModeratorSuccession, successorAmong } from '../../../../src/engine/meetings/moderator-succession.js';
import type { Room } from '../../../../src/engine/rooms/room.js';
import type { StartResult } from '../../../../src/engine/waiting/waiting-room-types.js';
import { Fixture, arrive, by, claims } from '../../../helpers/engine-fixture.js';
import { asyncOf } from '../../../helpers/async-of.js';

/** An open gateway room: entered with a join token (role participant, source link), never left without a moderator. */
function openRoom(f: Fixture, fields: Partial<Room> = {}): ModeratorSuccession {
  f.room({ entry: 'token', unlisted: true, waitingRoom: 'off', moderatorSuccession: true, ...fields });
  return new ModeratorSuccession(f.meetings, asyncOf(f.store));
}

const anonymous = (name: string) => arrive('r1', name, { claims: claims('participant', 'link') });

function joined(result: StartResult | { status: string }): Participant {
  if (result.status !== 'joined' || !('participant' in result))
    throw new Error(`expected to join, got ${result.status}`);
  return result.participant;
}

function roleChanges(f: Fixture): Participant[] {
  const seen: Participant[] = [];
  f.meetings.onRoleChanged((p) => seen.push(p));
  return seen;
}

t.test('the first anonymous arrival is the moderator, the second is not', async (t) => {
  const f = new Fixture();
  openRoom(f);
  const ann = joined(await f.waiting.start(anonymous('Ann')));
  const bob = joined(await f.waiting.start(anonymous('Bob')));
  t.equal(ann.role, 'moderator');
  t.equal(bob.role, 'participant');
  t.same(await f.waiting.list('r1', by(ann.participantId)), [], 'her gestures are allowed');
  await t.rejects(() => f.waiting.list('r1', by(bob.participantId)), { code: 'not_moderator' }, 'his are not');
  t.same(await f.kinds(), ['moderator_arrived']);
});

t.test('the moderator leaves: the one present longest is promoted, durably, and listeners are told once', async (t) => {
  const f = new Fixture();
  openRoom(f);
  const changes = roleChanges(f);
  const ann = joined(await f.waiting.start(anonymous('Ann')));
  const bob = joined(await f.waiting.start(anonymous('Bob')));
  const cid = joined(await f.waiting.start(anonymous('Cid')));
  await t.rejects(() => f.waiting.list('r1', by(bob.participantId)), { code: 'not_moderator' }, 'refused before');

  f.clock.advance(1000);
  await f.meetings.leave(ann.participantId);
  t.equal(f.meetings.participant(bob.participantId)?.role, 'moderator', 'Bob joined before Cid: he takes over');
  t.equal(f.meetings.participant(cid.participantId)?.role, 'participant');
  t.same(await f.waiting.list('r1', by(bob.participantId)), [], 'allowed now: authority is the record');
  t.same(
    changes.map((p) => [p.name, p.role]),
    [['Bob', 'moderator']],
  );
  t.equal(f.store.participants.get(bob.participantId)?.role, 'moderator', 'written to the store');
  t.match((await f.meetings.timeline('r1')).at(-1), {
    kind: 'moderator_promoted',
    actor: null,
    subject: { participantId: bob.participantId, name: 'Bob' },
  });
  t.match(
    (await f.meetings.attendance('r1')).participants.find((p) => p.name === 'Bob'),
    { role: 'moderator' },
  );

  await f.meetings.leave(cid.participantId);
  t.equal(changes.length, 1, 'a participant leaving while a moderator is present changes nobody');
  await f.meetings.leave(bob.participantId);
  t.equal(changes.length, 1, 'nobody is left to promote');
  const dan = joined(await f.waiting.start(anonymous('Dan')));
  t.equal(dan.role, 'moderator', 'the next arrival into the empty room is its moderator');
});

t.test('a room without the flag is unchanged: roles come from the token only and nobody is promoted', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off', moderatorSuccession: false });
  new ModeratorSuccession(f.meetings, asyncOf(f.store));
  const changes = roleChanges(f);
  const ann = joined(await f.waiting.start(anonymous('Ann')));
  t.equal(ann.role, 'participant', 'the first arrival is no moderator');
  const mod = joined(await f.waiting.start(arrive('r1', 'Mo', { claims: claims('moderator') })));
  const bob = joined(await f.waiting.start(anonymous('Bob')));
  await f.meetings.leave(mod.participantId);
  t.same(changes, []);
  t.same(
    [ann, bob].map((p) => f.meetings.participant(p.participantId)?.role),
    ['participant', 'participant'],
  );
  t.notOk((await f.meetings.timeline('r1')).some((e) => e.kind === 'moderator_promoted'));
});

t.test(
  'a moderator by token keeps the room: anonymous arrivals stay participants, and her leaving promotes',
  async (t) => {
    const f = new Fixture();
    openRoom(f);
    const mod = joined(await f.waiting.start(arrive('r1', 'Mo', { claims: claims('moderator', 'integration') })));
    const ann = joined(await f.waiting.start(anonymous('Ann')));
    t.equal(ann.role, 'participant');
    await f.meetings.leave(mod.participantId);
    t.equal(f.meetings.participant(ann.participantId)?.role, 'moderator');
  },
);

t.test('simultaneous arrivals give exactly one moderator', async (t) => {
  const f = new Fixture();
  openRoom(f);
  const results = await Promise.all(
    ['A', 'B', 'C', 'D', 'E', 'F'].map((name, i) =>
      i % 2 ? f.waiting.knock(anonymous(name)) : f.waiting.start(anonymous(name)),
    ),
  );
  const people = results.map(joined);
  t.equal(people.filter((p) => p.role === 'moderator').length, 1, 'one moderator');
  t.equal(people[0]!.role, 'moderator', 'the first to enter');
});

t.test(
  'scope guests: the first enters as moderator without waiting; later anonymous arrivals are guests and wait',
  async (t) => {
    const f = new Fixture();
    openRoom(f, { waitingRoom: 'guests', waitingRoomMode: 'approval' });
    const ann = joined(await f.waiting.knock(anonymous('Ann')));
    t.equal(ann.role, 'moderator', 'nobody would be there to admit her');
    t.same(await f.waiting.start(anonymous('Bob')), { status: 'knock' }, 'a bare-link guest waits');
    const bob = await f.knock('Bob', 'r1', { claims: claims('participant', 'link') });
    t.same(
      (await f.waiting.list('r1', by(ann.participantId))).map((r) => r.name),
      ['Bob'],
    );
    const admittedByToken = joined(
      await f.waiting.start(arrive('r1', 'Ivy', { claims: claims('participant', 'integration') })),
    );
    t.equal(admittedByToken.role, 'participant', 'a token holder enters directly as a participant');
    await f.waiting.admit('r1', bob.requestId, by(ann.participantId));
    t.equal((await f.waiting.poll('r1', bob.secret))?.status, 'admitted');
  },
);

t.test('until_moderator: a promotion admits those waiting, as an arrival would', async (t) => {
  const f = new Fixture();
  openRoom(f, { waitingRoom: 'all', waitingRoomMode: 'until_moderator' });
  const ann = joined(await f.waiting.start(anonymous('Ann')));
  const bob = joined(await f.waiting.start(arrive('r1', 'Bob', { claims: claims('participant', 'integration') })));
  t.equal(bob.role, 'participant', 'a moderator is present: he enters directly');
  await f.meetings.leave(ann.participantId);
  const cid = await f.waiting.knock(anonymous('Cid'));
  t.equal(cid.status, 'joined', 'Bob was promoted at once, so Cid enters instead of waiting');
  t.equal(f.meetings.participant(bob.participantId)?.role, 'moderator');

  // Someone waiting at the moment of a promotion: only a room that got the flag later (the
  // gateway's settings changed) can have that, since in an open room nobody waits alone.
  const g = new Fixture();
  g.room({ waitingRoom: 'all', waitingRoomMode: 'until_moderator', moderatorSuccession: false });
  const mod = joined(await g.waiting.start(arrive('r1', 'Mo', { claims: claims('moderator') })));
  const pat = joined(await g.waiting.start(arrive('r1', 'Pat', { claims: claims('participant', 'integration') })));
  await g.meetings.leave(mod.participantId);
  const guest = await g.knock('Early', 'r1', { claims: claims('participant', 'link') });
  t.same(await g.waiting.poll('r1', guest.secret), { status: 'waiting' }, 'no moderator present: the guest waits');
  g.store.rooms.set('r1', { ...g.store.rooms.get('r1')!, moderatorSuccession: true });
  await new ModeratorSuccession(g.meetings, asyncOf(g.store)).settleAll();
  t.equal(
    g.meetings.participant(pat.participantId)?.role,
    'moderator',
    'Pat is promoted when the daemon starts serving',
  );
  t.equal((await g.waiting.poll('r1', guest.secret))?.status, 'admitted', 'and the promotion admitted the guest');
  t.match((await g.meetings.timeline('r1')).slice(-2), [
    { kind: 'moderator_promoted' },
    { kind: 'admit_all', count: 1 },
  ]);
});

t.test(
  'promote: only a present participant of an open meeting; a moderator stays one without a second notice',
  async (t) => {
    const f = new Fixture();
    openRoom(f);
    const changes = roleChanges(f);
    const ann = joined(await f.waiting.start(anonymous('Ann')));
    t.equal(await f.meetings.promote('nobody'), null);
    t.equal((await f.meetings.promote(ann.participantId))?.role, 'moderator');
    t.same(changes, [], 'already a moderator');
    await f.meetings.leave(ann.participantId);
    t.equal(await f.meetings.promote(ann.participantId), null, 'who left is not promoted');
  },
);

t.test('a failed write promotes nobody, in the store or in memory', async (t) => {
  const f = new Fixture();
  openRoom(f);
  const changes = roleChanges(f);
  const ann = joined(await f.waiting.start(anonymous('Ann')));
  const bob = joined(await f.waiting.start(anonymous('Bob')));
  f.store.commitError = new Error('disk full');
  // The leave is committed before the promotion is tried: the promotion's failure is its listener's, logged, not the leave's.
  t.equal((await f.meetings.leave(ann.participantId))?.participantId, ann.participantId, 'the leave itself stands');
  f.store.commitError = null;
  // The promotion awaits: its failure is logged once it settled.
  await new Promise((resolve) => setImmediate(resolve));
  t.match(
    f.log.entries,
    [{ event: 'participant left', err: { message: 'disk full' } }],
    'the failed promotion is logged under the event',
  );
  t.equal(f.meetings.participant(bob.participantId)?.role, 'participant');
  t.equal(f.store.participants.get(bob.participantId)?.role, 'participant');
  t.same(changes, []);
});

t.test(
  'after a restart: the promoted moderator is still one; a crash between leave and promotion is settled at start',
  async (t) => {
    const f = new Fixture();
    let succession = openRoom(f);
    const ann = joined(await f.waiting.start(anonymous('Ann')));
    const bob = joined(await f.waiting.start(anonymous('Bob')));
    const cid = joined(await f.waiting.start(anonymous('Cid')));
    await f.meetings.leave(ann.participantId);
    f.restart();
    succession = new ModeratorSuccession(f.meetings, asyncOf(f.store));
    t.equal(f.meetings.participant(bob.participantId)?.role, 'moderator');
    t.same(await f.waiting.list('r1', by(bob.participantId)), []);

    // The process dies after Bob's leave was written and before the promotion: nobody listens.
    succession.close();
    await f.meetings.leave(bob.participantId);
    t.equal(f.meetings.participant(cid.participantId)?.role, 'participant');
    f.restart();
    const after = new ModeratorSuccession(f.meetings, asyncOf(f.store));
    await after.settleAll();
    t.equal(f.meetings.participant(cid.participantId)?.role, 'moderator', 'settled when the daemon starts serving');
  },
);

t.test('successorAmong: nobody while a moderator is present, else the first in join order', async (t) => {
  const p = (name: string, role: Participant['role']): Participant => ({
    participantId: name,
    meetingId: 'm',
    roomId: 'r',
    role,
    name,
    joinedAt: '',
    leftAt: null,
  });
  t.equal(successorAmong([]), null);
  t.equal(successorAmong([p('a', 'participant'), p('b', 'moderator')]), null);
  t.equal(successorAmong([p('a', 'participant'), p('b', 'participant')])?.name, 'a');
});
