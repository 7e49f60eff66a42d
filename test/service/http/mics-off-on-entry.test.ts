// Issue 31 point 11: the room setting "microphones off on entry" (mics_off_on_entry). On by
// default for a room with a waiting room, off without one; the instance's default is
// SERVICE_MICS_OFF_ON_ENTRY; the welcome tells every arrival of such a room to start muted.
import t from 'tap';
import { appFor } from '../../helpers/app.js';
import { assertError, call, rooms } from '../../helpers/api.js';
import { connectLive } from '../../helpers/live.js';
import { admittedSession, linkToken, moderator } from '../../helpers/waiting.js';

t.test('mics_off_on_entry: defaults, set and patched, refused when not a boolean, told in the welcome', async (t) => {
  const d = await appFor(t, { listen: true });
  const live = { url: d.url! };
  const lesson = await rooms.create(d, { room_id: 'lesson', name: 'Lesson', waiting_room: 'guests' });
  t.equal(lesson.status, 201);
  t.equal(lesson.body.mics_off_on_entry, true, 'a room with a waiting room: on by default');
  const open = await rooms.create(d, { room_id: 'open', name: 'Open room' });
  t.equal(open.body.mics_off_on_entry, false, 'a room without a waiting room: off by default');
  const chosen = await rooms.create(d, {
    room_id: 'choir',
    name: 'Choir',
    waiting_room: 'guests',
    mics_off_on_entry: false,
  });
  t.equal(chosen.body.mics_off_on_entry, false, 'the creator decides');
  const patched = await rooms.patch(d, 'open', { mics_off_on_entry: true });
  t.equal(patched.status, 200);
  t.equal(patched.body.mics_off_on_entry, true, 'PATCH turns it on');
  t.equal((await rooms.get(d, 'open')).body.mics_off_on_entry, true, 'and it is stored');
  assertError(t, await rooms.patch(d, 'open', { mics_off_on_entry: 'yes' }), 400, 'invalid_field', 'mics_off_on_entry');
  assertError(
    t,
    await rooms.create(d, { room_id: 'bad', name: 'Bad', mics_off_on_entry: 1 }),
    400,
    'invalid_field',
    'mics_off_on_entry',
  );

  // A participant's link enters the lesson directly (a waiting room for guests only): she is told to start muted.
  const pupilLink = await linkToken(d, 'lesson', { role: 'participant', name: 'Pia' });
  const started = await call(d, '/room/lesson/start', {
    method: 'POST',
    token: null,
    json: { name: 'Pia', t: pupilLink },
  });
  const pupil = await connectLive(live, 'lesson', admittedSession(started, 'Pia').session);
  t.teardown(() => pupil.client.socket.close());
  t.equal(pupil.welcome.mute_on_start, true, 'a pupil arriving in the lesson is told to start muted');
  // The teacher enters as she was, as a host does in the anchors.
  const teacher = await connectLive(live, 'lesson', (await moderator(d, 'lesson', 'Ms Keller')).session);
  t.teardown(() => teacher.client.socket.close());
  t.equal(teacher.welcome.mute_on_start, false, 'a moderator is not muted by the room setting');
  const choirLink = await linkToken(d, 'choir', { role: 'participant', name: 'Cleo' });
  const inChoir = await call(d, '/room/choir/start', {
    method: 'POST',
    token: null,
    json: { name: 'Cleo', t: choirLink },
  });
  const singer = await connectLive(live, 'choir', admittedSession(inChoir, 'Cleo').session);
  t.teardown(() => singer.client.socket.close());
  t.equal(singer.welcome.mute_on_start, false, 'not where the room turned it off');
});

t.test('SERVICE_MICS_OFF_ON_ENTRY sets the default of new rooms', async (t) => {
  const on = await appFor(t, { env: { SERVICE_MICS_OFF_ON_ENTRY: 'on' } });
  t.equal((await rooms.create(on, { room_id: 'a', name: 'A' })).body.mics_off_on_entry, true, 'on: every new room');
  const off = await appFor(t, { env: { SERVICE_MICS_OFF_ON_ENTRY: 'off' } });
  t.equal(
    (await rooms.create(off, { room_id: 'b', name: 'B', waiting_room: 'all' })).body.mics_off_on_entry,
    false,
    'off: not even with a waiting room',
  );
});
