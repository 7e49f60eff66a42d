import t from 'tap';
import { call, dataDirFor, rooms } from '../../helpers/api.js';
import { FakeClock, FakeScheduler } from '../../helpers/fake-clock.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { connectLive } from '../../helpers/live.js';
import { admittedSession, attendanceRows, Browser, claimsOf, createRoom, moderator } from '../../helpers/waiting.js';

// The daemon runs in the test's process on real sockets; the leave grace runs on a fake
// scheduler the test moves, the rest of the daemon keeps real time.
t.test('sub-groups: create, move into one without waiting, bring everyone back', async (t) => {
  const scheduler = new FakeScheduler(new FakeClock());
  const d = await inProcessDaemonFor(t, dataDirFor(t), {}, { scheduler });
  await createRoom(t, d, { room_id: 'class', name: 'Class 4B', waiting_room: 'all' });
  const teacher = await moderator(d, 'class', 'Teacher');
  const pia = new Browser(d, 'class');
  t.equal((await pia.knock({ name: 'Pia', note: '' })).status, 202);
  t.same((await call(d, '/room/class/admit', { method: 'POST', token: teacher.session, json: { all: true } })).body, {
    admitted: 1,
  });
  const pupil = admittedSession(await pia.poll(), 'Pia');

  const m = await connectLive(d, 'class', teacher.session);
  const p = await connectLive(d, 'class', pupil.session);
  t.same(m.welcome.subgroups, []);

  p.client.send({ type: 'create_subgroups', count: 2 });
  t.equal((await p.client.next('error')).code, 'not_moderator', 'a participant cannot create sub-groups');
  m.client.send({ type: 'create_subgroups', count: 0 });
  t.equal((await m.client.next('error')).code, 'invalid_message', 'count 0 is refused');

  m.client.send({ type: 'create_subgroups', count: 2 });
  t.same((await m.client.next('subgroups')).subgroups, ['class-g1', 'class-g2']);
  t.same((await p.client.next('subgroups')).subgroups, ['class-g1', 'class-g2'], 'everyone learns the sub-groups');
  const g1 = await rooms.get(d, 'class-g1');
  t.equal(g1.status, 200);
  t.equal(g1.body.parent_room_id, 'class', 'made through the rooms service as sub-groups of the room');
  t.match(g1.body.name, /Class 4B/);

  m.client.send({ type: 'move', participant_id: pupil.participantId, room_id: 'elsewhere' });
  t.equal((await m.client.next('error')).code, 'invalid_message', 'only the family of rooms is a target');
  m.client.send({ type: 'move', participant_id: 'nobody', room_id: 'class-g1' });
  t.equal((await m.client.next('error')).code, 'participant_not_found');
  p.client.send({ type: 'move', participant_id: teacher.participantId, room_id: 'class-g1' });
  t.equal((await p.client.next('error')).code, 'not_moderator', 'a participant moves nobody');

  m.client.send({ type: 'move', participant_id: pupil.participantId, room_id: 'class-g1' });
  t.same(await p.client.next('move'), { type: 'move', room_id: 'class-g1' });
  t.equal(m.client.pending('move').length, 0, 'only the moved person is told');

  // Her page follows: her class session opens the sub-group directly (no waiting), then its live socket.
  const entered = await call(d, '/room/class-g1/start', { method: 'POST', token: pupil.session, json: {} });
  t.equal(entered.body?.status, 'joined', 'no waiting room on the way into a sub-group');
  const groupSession = entered.body.session as string;
  t.match(claimsOf(groupSession), { room: 'class-g1', name: 'Pia', role: 'participant' });
  await p.client.close();
  await m.client.next('participant_left', (x) => x.participant_id === pupil.participantId);
  const inGroup = await connectLive(d, 'class-g1', groupSession);
  t.equal(inGroup.welcome.room_id, 'class-g1');
  t.same(inGroup.welcome.subgroups, ['class-g1', 'class-g2'], 'the family of sub-groups, from inside one');

  // Away in a sub-group is not leaving the class: after the grace period she is still present there.
  t.ok(scheduler.size > 0, 'her closed class socket started a leave grace');
  scheduler.advance(5_500);
  const pia1 = (await attendanceRows(d, 'class')).find((row) => row[0] === 'Pia');
  t.equal(pia1?.[4], '', 'still present in the class while in the sub-group');
  const second = await call(d, '/room/class-g2/start', { method: 'POST', token: pupil.session, json: {} });
  t.equal(second.body?.status, 'joined', 'so her class session still opens the other sub-groups');

  // Bring everyone back: whoever is in a sub-group is told to go to the class.
  m.client.send({ type: 'bring_back' });
  t.same(await inGroup.client.next('move'), { type: 'move', room_id: 'class' });
  await inGroup.client.close();
  const back = await connectLive(d, 'class', pupil.session);
  t.equal(back.welcome.room_id, 'class');
  t.equal(back.welcome.self.participant_id, pupil.participantId, 'back as the same participant of the class');
  await m.client.next('participant_joined', (x) => x.participant.participant_id === pupil.participantId);

  // A moderator's later welcome lists the sub-groups.
  const again = await connectLive(d, 'class', teacher.session);
  t.same(again.welcome.subgroups, ['class-g1', 'class-g2']);
  t.equal((await m.client.closed).code, 4409);
  await back.client.close();
  await again.client.close();
});
