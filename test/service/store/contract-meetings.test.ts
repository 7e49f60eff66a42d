// Issue 34: the meetings repository's contract, one suite run on both stores (the row mappers of
// src/store/rows/meeting-row.ts serve both): a meeting's flag, a participant with and without her
// platform id, and every part of a timeline entry read back as written, in the order written.
import type { AsyncStores } from '../../../src/engine/async-ports.js';
import type { Meeting, Participant } from '../../../src/engine/meetings/meeting.js';
import type { TimelineEntry } from '../../../src/engine/meetings/timeline.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const t0 = Date.parse('2030-01-01T09:00:00.000Z');
const iso = (ms: number) => new Date(t0 + ms).toISOString();

const meetingOf = (meetingId: string, roomId: string, atMs: number, fields: Partial<Meeting> = {}): Meeting => ({
  meetingId,
  roomId,
  startedAt: iso(atMs),
  endedAt: null,
  waitingDisabled: false,
  subject: '',
  ...fields,
});

async function room(stores: AsyncStores, roomId: string): Promise<string> {
  await stores.rooms.insert(waitingRoomFixture(roomId));
  return roomId;
}

onEachStore('meetings read back as written: open ones in start order, a room’s newest first', async (t, stores) => {
  const { meetings } = stores;
  const [r1, r2, r3] = [await room(stores, 'room-1'), await room(stores, 'room-2'), await room(stores, 'room-3')];
  const first = meetingOf('m-1', r1, 0, { waitingDisabled: true, subject: 'Algebra — Übung 3' });
  const second = meetingOf('m-2', r2, 5);
  const third = meetingOf('m-3', r3, 10);
  for (const m of [third, first, second]) await meetings.insertMeeting(m);
  t.same(await meetings.getMeeting('m-1'), first, 'every field, the flag set');
  t.equal(await meetings.getMeeting('nope'), null);
  t.same(await meetings.openMeetings(), [first, second, third], 'in start order');

  const ended = { ...first, endedAt: iso(20), waitingDisabled: false, subject: '' };
  await meetings.updateMeeting(ended);
  t.same(await meetings.getMeeting('m-1'), ended, 'ended, the flag cleared, the subject cleared');
  const next = meetingOf('m-4', r1, 30, { waitingDisabled: true });
  await meetings.insertMeeting(next);
  t.same(await meetings.openMeetings(), [second, third, next]);
  t.same(await meetings.meetingsOf(r1), [next, ended], 'newest first');
  t.same(await meetings.meetingsOf('room-none'), []);
});

onEachStore('participants: with her meeting’s room, her platform id only when she has one', async (t, stores) => {
  const { meetings } = stores;
  await meetings.insertMeeting(meetingOf('m-1', await room(stores, 'room-1'), 0));
  const bea: Participant = {
    participantId: 'p-bea',
    meetingId: 'm-1',
    roomId: 'room-1',
    role: 'participant',
    name: 'Béa',
    joinedAt: iso(2),
    leftAt: null,
  };
  const ann: Participant = {
    ...bea,
    participantId: 'p-ann',
    role: 'moderator',
    name: 'Ann',
    joinedAt: iso(1),
    externalId: 'lms-user-42',
  };
  await meetings.insertParticipant(bea);
  await meetings.insertParticipant(ann);
  const read = await meetings.participantsOf('m-1');
  t.same(read, [ann, bea], 'in join order, every field');
  t.notOk('externalId' in read[1]!, 'no platform id: no key at all');

  const left = { ...bea, leftAt: iso(9), role: 'moderator' as const, name: 'Béatrice' };
  await meetings.updateParticipant(left);
  t.same(await meetings.participantsOf('m-1'), [ann, left]);
  t.same(await meetings.participantsOf('m-none'), []);
});

onEachStore('timeline entries read back whole, in the order written', async (t, stores) => {
  const { meetings } = stores;
  await meetings.insertMeeting(meetingOf('m-1', await room(stores, 'room-1'), 0));
  const entries: TimelineEntry[] = [
    { meetingId: 'm-1', at: iso(1), kind: 'expire', actor: null, subject: null, count: null },
    {
      meetingId: 'm-1',
      at: iso(2),
      kind: 'admit',
      actor: { kind: 'participant', participantId: 'p-mod', name: 'Mod' },
      subject: { requestId: 'r-1', participantId: 'p-1', name: 'Zoë' },
      count: null,
    },
    {
      meetingId: 'm-1',
      at: iso(2),
      kind: 'admit_all',
      actor: { kind: 'api', participantId: null, name: 'lms' },
      subject: null,
      count: 3,
      skipped: 2,
    },
    {
      meetingId: 'm-1',
      at: iso(3),
      kind: 'participant_removed',
      actor: { kind: 'participant', participantId: 'p-mod', name: '' },
      subject: { requestId: null, participantId: 'p-1', name: 'Zoë' },
      count: null,
    },
  ];
  for (const e of entries) await meetings.appendTimeline(e);
  const read = await meetings.timelineOf('m-1');
  t.same(read, entries);
  t.notOk('skipped' in read[0]!, 'nothing skipped: no key at all');
  t.same(await meetings.timelineOf('m-none'), []);
});
