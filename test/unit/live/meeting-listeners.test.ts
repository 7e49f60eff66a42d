import t from 'tap';
import type { Meeting, Participant } from '../../../src/engine/meetings/meeting.js';
import { Fixture, arrive } from '../../helpers/engine-fixture.js';

t.test('MeetingService tells listeners of ended meetings and of leaves', async (t) => {
  const f = new Fixture({ meetings: { emptyGraceMs: 0 } });
  f.room({ waitingRoom: 'off' });
  f.room({ roomId: 'r2', waitingRoom: 'off' });
  const ended: Meeting[] = [];
  const left: Participant[] = [];
  const offEnded = f.meetings.onEnded((m) => ended.push(m));
  f.meetings.onLeft((p) => left.push(p));
  const joined = await f.waiting.start(arrive('r1', 'Ann'));
  if (joined.status !== 'joined') throw new Error('not joined');
  await f.meetings.leave(joined.participant.participantId);
  await f.meetings.leave(joined.participant.participantId);
  t.equal(left.length, 1, 'told once, not for a repeated leave');
  t.match(left[0], { participantId: joined.participant.participantId, leftAt: f.clock.now().toISOString() });

  await f.waiting.sweep();
  t.equal(ended.length, 1);
  t.match(ended[0], { roomId: 'r1', endedAt: f.clock.now().toISOString() }, 'an ended meeting carries its end time');
  t.equal(f.meetings.current('r1'), null, 'listeners run once the meeting left memory');

  await f.waiting.start(arrive('r2', 'Bob'));
  f.meetings.roomDeleted('r2');
  t.match(ended[1], { roomId: 'r2', endedAt: null }, 'a meeting dropped with its room has no end time');

  offEnded();
  await f.waiting.start(arrive('r1', 'Cid'));
  await f.meetings.end('r1');
  t.equal(ended.length, 2, 'unsubscribed');
});

t.test('a failing listener does not stop the others; it is logged, never thrown into the caller', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const seen: string[] = [];
  f.meetings.onEnded(() => {
    throw new Error('boom');
  });
  f.meetings.onEnded(() => seen.push('second'));
  await f.waiting.start(arrive('r1', 'Ann'));
  t.equal(await f.meetings.end('r1'), true);
  t.same(seen, ['second']);
  t.equal(f.meetings.current('r1'), null, 'the meeting ended anyway');
  t.match(f.log.entries, [{ event: 'meeting ended', err: { message: 'boom' } }]);
});
