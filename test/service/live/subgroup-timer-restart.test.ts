// Issue 31 point 14: the sub-groups' timer is kept in SQLite (migration 014). The engine's test
// runs on the store port; this one closes a real in-process app and builds a new one on the same
// data directory: the timer still brings everyone back at its time, on the fake clock, and the message to all
// groups (migration 016) is still told to a page that arrives in a group after the restart.
import t from 'tap';
import { appFor } from '../../helpers/app.js';
import { call, dataDirFor } from '../../helpers/api.js';
import { FakeClock, FakeScheduler } from '../../helpers/fake-clock.js';
import { connectLive } from '../../helpers/live.js';
import { admittedSession, createRoom, moderator } from '../../helpers/waiting.js';

const minute = 60_000;

t.test('the sub-group timer and the message to all groups survive a restart on SQLite', async (t) => {
  const clock = new FakeClock();
  const dataDir = dataDirFor(t);
  // Nobody is connected while the service is down: the meeting must not end of being empty meanwhile.
  const env = { SERVICE_MEETING_EMPTY_GRACE_SECS: '86400' };
  const first = await appFor(t, { clock, scheduler: new FakeScheduler(clock), dataDir, env, listen: true });
  const firstLive = { url: first.url! };
  await createRoom(t, first, { room_id: 'lesson', name: 'Maths 7b' });
  const teacher = await moderator(first, 'lesson', 'Ms Keller');
  const started = await call(first, '/room/lesson/start', { method: 'POST', token: null, json: { name: 'Pia' } });
  const pupil = admittedSession(started, 'Pia');

  const m = await connectLive(firstLive, 'lesson', teacher.session);
  const p = await connectLive(firstLive, 'lesson', pupil.session);
  m.client.send({ type: 'create_subgroups', count: 2, names: ['Foxes', 'Owls'] });
  await m.client.next('subgroups');
  const set = clock.now().getTime();
  const endsAt = new Date(set + 10 * minute).toISOString();
  m.client.send({ type: 'subgroup_timer', minutes: 10 });
  t.equal((await m.client.next('subgroups', (x) => x.ends_at !== null)).ends_at, endsAt, 'the timer is set');
  m.client.send({ type: 'group_message', text: 'Page 42, exercise 3' });
  await m.client.next('group_message');
  m.client.send({ type: 'move', participant_id: pupil.participantId, room_id: 'lesson-g1' });
  await p.client.next('move');
  // Her page follows the move: the group's session from her lesson session, its socket.
  const entered = await call(first, '/room/lesson-g1/start', { method: 'POST', token: pupil.session, json: {} });
  t.equal(entered.body?.status, 'joined');
  const groupSession = String(entered.body.session);
  const inGroup = await connectLive(firstLive, 'lesson-g1', groupSession);
  t.equal(inGroup.welcome.groups_end_at, endsAt);
  t.same(
    await inGroup.client.next('group_message'),
    { type: 'group_message', text: 'Page 42, exercise 3', from: 'Ms Keller' },
    'moved in after the message to all groups, she is told it',
  );

  // Four minutes in, the service stops (its sockets close); nothing of the old process runs on.
  clock.advance(4 * minute);
  await first.close();
  await inGroup.client.closed;
  clock.advance(1 * minute);

  // A new app on the same files: her page reconnects into the group and hears the same end.
  const scheduler = new FakeScheduler(clock);
  const second = await appFor(t, { clock, scheduler, dataDir, env, listen: true });
  const back = await connectLive({ url: second.url! }, 'lesson-g1', groupSession);
  t.teardown(() => back.client.socket.close());
  t.equal(back.welcome.room_id, 'lesson-g1', 'still in her group after the restart');
  t.equal(back.welcome.groups_end_at, endsAt, 'the end read back from SQLite');
  t.same(
    back.welcome.groups.map((g) => g.name),
    ['Foxes', 'Owls'],
    'and the names the teacher chose',
  );
  t.same(
    await back.client.next('group_message'),
    { type: 'group_message', text: 'Page 42, exercise 3', from: 'Ms Keller' },
    'the message to all groups read back from SQLite: told again on her return',
  );

  scheduler.advance(5 * minute - 1);
  t.equal(back.client.pending('move').length, 0, 'not a millisecond early');
  scheduler.advance(1);
  t.same(await back.client.next('move'), { type: 'move', room_id: 'lesson' }, 'back to the main room at the end');
  t.equal((await back.client.next('subgroups')).ends_at, null, 'and the timer is over');
  t.equal(clock.now().getTime(), set + 10 * minute, 'at the time the teacher set');
});
