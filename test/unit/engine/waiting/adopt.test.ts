// Issue 35 stage 3: a room taken over from another node is read anew (WaitingRoomService.adopt,
// MeetingService.adopt). Here the other node's writes are made on the store by hand while this
// node's memory still holds the room as it was (a restart under the same id, or a room held
// again after a gap): adopting replaces memory with the store's state, roles, requests and the
// meeting's end included, and the moderators' pages are told their list was reset.
import t from 'tap';
import { Fixture, by } from '../../../helpers/engine-fixture.js';

t.test('adopt replaces what memory held of the room with what the store holds now', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  const guest = await f.moderator('r1', 'Gus');
  const ada = await f.knock('Ada', 'r1', { note: 'camera off' });
  const bob = await f.knock('Bob');
  const meeting = f.meetings.current('r1')!;
  const resets: boolean[] = [];
  f.waiting.onWaitingListChange((_roomId, change) => resets.push(change.reset));

  // Meanwhile, on the other node: Gus lost the moderator role (he was a participant there), Bob
  // withdrew, a new knock came. None of it is in this node's memory.
  f.store.updateParticipant({ ...f.meetings.participant(guest.participantId)!, role: 'participant' });
  const [adaRow, bobRow] = f.store.pollableRequests(meeting.meetingId);
  f.store.updateRequest({ ...bobRow!, state: 'withdrawn', decidedAt: f.clock.now().toISOString() });
  f.store.insertKnock({ ...adaRow!, requestId: `${adaRow!.requestId}x`, name: 'Cy', secretHash: 'elsewhere' });

  await f.waiting.adopt('r1');
  t.same(resets, [true], "the moderators' list is reset");
  t.equal(f.meetings.current('r1')?.meetingId, meeting.meetingId, 'the same meeting');
  const list = await f.waiting.list('r1', by(mod.participantId));
  t.same(
    list.map((item) => [item.name, item.note]),
    [
      ['Ada', 'camera off'],
      ['Cy', 'camera off'],
    ],
  );
  t.same(await f.waiting.poll('r1', ada.secret), { status: 'waiting' }, 'her cookie still finds her request');
  t.equal(await f.waiting.poll('r1', bob.secret), null, 'withdrawn elsewhere');
  await t.rejects(f.waiting.list('r1', by(guest.participantId)), { code: 'not_moderator' }, 'his role as stored');

  // The meeting ended on the other node: adopting finds no open meeting.
  f.store.updateMeeting({ ...meeting, endedAt: f.clock.now().toISOString() });
  await f.waiting.adopt('r1');
  t.equal(f.meetings.current('r1'), null);
  t.equal(await f.waiting.poll('r1', ada.secret), null);
  t.equal(f.meetings.participant(mod.participantId), null, 'its participants left memory');
});
