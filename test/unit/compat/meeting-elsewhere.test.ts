// Issue 35 stage 3: on a clustered node the meeting API's view of a meeting whose room another
// node serves cannot be judged from this node's memory (no engine meeting here). Its refresh
// (every call on the meeting, and the module's sweep each second) concludes "emptied" from that
// memory, and the fence refuses the write (LeaseLostError): the meeting is answered as stored,
// not ended, and no error reaches the sweep's log.
import t from 'tap';
import { CompatMeetings, type CompatMeetingsDeps } from '../../../src/compat/confapi/meetings.js';
import { LeaseLostError } from '../../../src/engine/cluster/leases.js';
import { meeting } from '../../helpers/compat-meeting.js';
import { FakeClock } from '../../helpers/fake-clock.js';

t.test('a meeting served by another node is neither ended nor logged by this node', async (t) => {
  const clock = new FakeClock();
  const stored = meeting('t1', 'lesson', clock.now().getTime(), { engineMeetingId: 'm-elsewhere' });
  const written: string[] = [];
  const errors: unknown[] = [];
  const refused = () => Promise.reject(new LeaseLostError([stored.roomId]));
  const deps = {
    store: {
      openMeetings: () => Promise.resolve([stored]),
      meeting: () => Promise.resolve(stored),
      transaction: <T>(work: () => Promise<T>) => work(),
      updateMeeting: () => {
        written.push('meeting');
        return refused();
      },
    },
    rooms: {
      find: () => Promise.resolve({ roomId: stored.roomId, entry: 'open', unlisted: true }),
      update: () => {
        written.push('room');
        return refused();
      },
    },
    // This node holds no engine meeting of the room: another node serves it.
    meetings: { current: () => null, present: () => [] },
    clock,
    callbacks: { enqueue: () => Promise.resolve() },
    live: () => ({ attendees: () => [] }),
    tenantSecret: () => null,
    onError: (err: unknown) => errors.push(err),
  } as unknown as CompatMeetingsDeps;
  const meetings = new CompatMeetings(deps);
  t.same(await meetings.refresh(stored), stored, 'answered as stored, still open');
  await meetings.sweep();
  t.same(errors, [], 'the sweep logs nothing');
  t.ok(written.length > 0, 'the write was tried and refused by the fence');

  // Any other failure still reaches the caller.
  const broken = new CompatMeetings({
    ...deps,
    rooms: { ...deps.rooms, update: () => Promise.reject(new Error('disk full')) },
  });
  await t.rejects(broken.refresh(stored), /disk full/);
});
