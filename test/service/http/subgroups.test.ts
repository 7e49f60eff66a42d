import t from 'tap';
import { assertError, call, rooms } from '../../helpers/api.js';
import { appFor } from '../../helpers/app.js';

const json = (body: unknown) => ({ method: 'POST', json: body, token: null });

t.test('a sub-group never waits, and is entered only from its meeting', async (t) => {
  const d = await appFor(t, { env: { SERVICE_WAITING_ROOM: 'forced' } });
  t.equal(
    (await rooms.create(d, { room_id: 'class', name: 'Class 4B', waiting_room: 'all', access_code: '2468' })).status,
    201,
  );
  const group = await rooms.create(d, {
    room_id: 'class-g1',
    name: 'Group 1',
    waiting_room: 'all',
    parent_room_id: 'class',
  });
  t.equal(group.status, 201, 'forced policy has nothing to refuse on a sub-group');
  t.equal(group.body.parent_room_id, 'class');

  assertError(
    t,
    await rooms.create(d, { room_id: 'x', name: 'X', parent_room_id: 'nope' }),
    400,
    'invalid_field',
    'parent_room_id',
  );
  assertError(
    t,
    await rooms.create(d, { room_id: 'x', name: 'X', parent_room_id: 'class-g1' }),
    400,
    'invalid_field',
    'parent_room_id',
  );
  assertError(t, await rooms.patch(d, 'class-g1', { parent_room_id: 'class' }), 400, 'invalid_field', 'parent_room_id');

  // A stranger with the sub-group's address gets nothing: no waiting, no entry.
  assertError(t, await call(d, '/room/class-g1/start', json({ name: 'Stranger' })), 403, 'subgroup_closed');
  assertError(t, await call(d, '/room/class-g1/knock', json({ name: 'Stranger' })), 403, 'subgroup_closed');

  // The teacher enters the class; a pupil knocks (with the code) and is admitted.
  const link = await call(d, '/api/rooms/class/links', {
    method: 'POST',
    json: { role: 'moderator', name: 'Teacher' },
  });
  const teacherToken = new URL(link.body.url, 'http://localhost').searchParams.get('t');
  const teacher = await call(d, '/room/class/start', json({ t: teacherToken }));
  t.equal(teacher.body.status, 'joined');
  const knock = await d.api('/room/class/knock', {
    method: 'POST',
    token: null,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Pupil', access_code: '2468' }),
  });
  t.equal(knock.status, 202);
  const cookie = knock.headers.get('set-cookie')!.split(';')[0]!;
  t.same(
    (await call(d, '/room/class/admit', { method: 'POST', json: { all: true }, token: teacher.body.session })).body,
    { admitted: 1 },
  );
  const admitted = await (await d.api('/room/class/waiting', { token: null, headers: { cookie } })).json();
  t.equal(admitted.status, 'admitted');

  // Moving into the sub-group: her session of the class is the key; no code, no waiting, her own name.
  const moved = await call(d, '/room/class-g1/start', {
    method: 'POST',
    json: { name: 'Someone else' },
    token: admitted.session,
  });
  t.equal(moved.status, 200);
  t.equal(moved.body.status, 'joined');
  const claims = JSON.parse(Buffer.from(moved.body.session.split('.')[1], 'base64url').toString());
  t.match(claims, { room: 'class-g1', name: 'Pupil', role: 'participant' });
  t.same(
    (await call(d, '/room/class-g1/waiting-list', { token: teacher.body.session })).status,
    401,
    'the class session is not a session of the group',
  );

  // After leaving the class, the key no longer opens the group.
  t.equal((await call(d, '/room/class/leave', { method: 'POST', token: admitted.session })).status, 204);
  assertError(
    t,
    await call(d, '/room/class-g1/start', { method: 'POST', json: { name: 'Pupil' }, token: admitted.session }),
    403,
    'subgroup_closed',
  );

  // Deleting the class deletes its sub-groups.
  t.equal((await rooms.delete(d, 'class')).status, 204);
  assertError(t, await rooms.get(d, 'class-g1'), 404, 'room_not_found');
});
