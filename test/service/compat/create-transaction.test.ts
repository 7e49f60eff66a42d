// Issue 34 point 2 (the meeting API's handlers on its asynchronous store): a create's meeting row
// and its engine room are ONE transaction of the store's port (CompatMeetings.create), on both
// adapters: a room that cannot be made leaves no row, in the store or in memory, even when the
// store takes no further write (nothing is taken back by hand: the row was never committed); two
// creates of one meetingID at once make one meeting, and two ends at once queue one callback. The
// engine's rooms are a stand-in here (the engine stays on SQLite until its own switch); on one
// PostgreSQL database the port's transaction is the engine's unit of work (pg-create-unit.test.ts).
import type { AsyncCompatStore } from '../../../src/compat/confapi/async-store.js';
import { CachedCompatStore } from '../../../src/compat/confapi/cached-store.js';
import { CompatMeetings, type CompatMeetingsDeps } from '../../../src/compat/confapi/meetings.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { meeting } from '../../helpers/compat-meeting.js';
import { onEachCompatStore } from '../../helpers/compat-store-adapters.js';

const t0 = Date.parse('2030-01-01T09:00:00.000Z');

/** CompatMeetings on `store`, with engine rooms that `makeRoom` may refuse; `made` lists the rooms made, `queued` the callbacks. */
function meetingsOn(store: CachedCompatStore, makeRoom: (roomId: string) => void) {
  const made: string[] = [];
  const queued: string[] = [];
  const rooms = {
    find: () => null,
    create: (input: { room_id: string }) => {
      makeRoom(input.room_id);
      made.push(input.room_id);
      return {};
    },
    update: () => ({}),
  };
  const meetings = new CompatMeetings({
    store,
    rooms: rooms as unknown as CompatMeetingsDeps['rooms'],
    meetings: { current: () => null } as unknown as CompatMeetingsDeps['meetings'],
    clock: new FakeClock(t0),
    policy: { waitingRoom: 'optional', waitingRoomMode: null },
    callbacks: {
      enqueue: async (job) => {
        queued.push(`${job.kind} ${job.internalId}`);
        return {} as Awaited<ReturnType<CompatMeetingsDeps['callbacks']['enqueue']>>;
      },
    },
    live: () => ({}) as ReturnType<CompatMeetingsDeps['live']>,
    tenantSecret: () => null,
  });
  return { meetings, made, queued };
}

/** The store, with meeting deletes refused (the connection lost right after the room failed, as a kill -9). */
function noDeletes(store: AsyncCompatStore): AsyncCompatStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'deleteMeeting') return () => Promise.reject(new Error('the store is gone'));
      return Reflect.get(target, key, target) as unknown;
    },
  });
}

onEachCompatStore('a create is one transaction: a room not made leaves no row', async (t, { store, another }) => {
  const cached = await CachedCompatStore.load(noDeletes(store));
  const other = another();
  let refuse = false;
  const { meetings, made } = meetingsOn(cached, (roomId) => {
    if (refuse) throw new Error(`no space left for ${roomId}`);
  });

  const first = meeting('uni', 'course-1', t0);
  t.same(await meetings.openOrCreate('uni', 'course-1', () => first), { meeting: first, existed: false });
  t.same(made, [first.roomId], 'its room was made');
  t.same(await other.meeting(first.internalId), first, 'another connection sees the row once committed');

  refuse = true;
  const lost = meeting('uni', 'course-2', t0 + 1);
  await t.rejects(
    meetings.openOrCreate('uni', 'course-2', () => lost),
    /no space left/,
    'the failure is answered',
  );
  t.equal(await other.meeting(lost.internalId), null, 'no row without its room (another connection)');
  t.equal(await cached.openMeeting('uni', 'course-2'), null, 'nor in memory');
  t.same(
    (await other.openMeetingsOf('uni')).map((m) => m.meetingId),
    ['course-1'],
    'only the meeting whose room was made',
  );
});

onEachCompatStore('two creates of one meetingID at once make one meeting', async (t, { store }) => {
  const cached = await CachedCompatStore.load(store);
  const { meetings, made } = meetingsOn(cached, () => undefined);
  const [a, b] = await Promise.all([
    meetings.openOrCreate('uni', 'twice', () => meeting('uni', 'twice', t0)),
    meetings.openOrCreate('uni', 'twice', () => meeting('uni', 'twice', t0 + 5)),
  ]);
  t.equal(a.existed, false, 'the first creates it');
  t.equal(b.existed, true, 'the second answers it as a duplicate');
  t.equal(b.meeting.internalId, a.meeting.internalId, 'the same meeting');
  t.equal(made.length, 1, 'one engine room');
  t.equal((await store.openMeetingsOf('uni')).length, 1, 'one row');
});

onEachCompatStore('two ends of one meeting at once queue its end callback once', async (t, { store, another }) => {
  const cached = await CachedCompatStore.load(store);
  const { meetings, queued } = meetingsOn(cached, () => undefined);
  const made = meeting('uni', 'ends', t0, { metadata: [['endcallbackurl', 'https://lms.example/ended']] });
  await meetings.openOrCreate('uni', 'ends', () => made);
  // An `end` call and the sweep (its duration over) reach the same meeting together.
  const [a, b] = await Promise.all([meetings.end(made, 'end'), meetings.end(made, 'duration')]);
  t.equal(a.endTime !== null && b.endTime !== null, true, 'both answer it ended');
  t.same(queued, [`meeting_ended ${made.internalId}`], 'one end callback');
  t.equal((await another().meeting(made.internalId))?.endReason, 'end', 'the first end is the one kept');
});
