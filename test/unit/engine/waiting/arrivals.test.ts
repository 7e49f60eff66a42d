import t from 'tap';
import { Fixture, arrive, claims } from '../../../helpers/engine-fixture.js';

t.test('scope off: nobody waits, start and knock both join', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const started = await f.waiting.start(arrive('r1', 'Ann'));
  t.equal(started.status, 'joined');
  const knocked = await f.waiting.knock(arrive('r1', 'Bob', { note: 'hi' }));
  t.equal(knocked.status, 'joined');
  t.same(
    f.meetings.present('r1').map((p) => [p.name, p.role]),
    [
      ['Ann', 'participant'],
      ['Bob', 'participant'],
    ],
  );
  t.equal(f.store.requests.size, 0, 'no request was created');
});

t.test('scope guests: bare-link and link-token guests wait; lms and integration enter', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'guests' });
  t.same(await f.waiting.start(arrive('r1', 'Guest')), { status: 'knock' }, 'bare link');
  t.same(
    await f.waiting.start(arrive('r1', 'Linked', { claims: claims('participant', 'link') })),
    { status: 'knock' },
    'link token',
  );
  t.equal((await f.waiting.start(arrive('r1', 'Student', { claims: claims('participant', 'lms') }))).status, 'joined');
  t.equal(
    (await f.waiting.knock(arrive('r1', 'App user', { claims: claims('participant', 'integration') }))).status,
    'joined',
  );
  t.equal(f.store.requests.size, 0, 'start never creates a request');
});

t.test('scope all: everyone but moderators waits', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'all' });
  t.same(await f.waiting.start(arrive('r1', 'Student', { claims: claims('participant', 'lms') })), { status: 'knock' });
  t.same(await f.waiting.start(arrive('r1', 'App', { claims: claims('participant', 'integration') })), {
    status: 'knock',
  });
  t.equal((await f.waiting.start(arrive('r1', 'Mod', { claims: claims('moderator', 'lms') }))).status, 'joined');
});

t.test('a moderator never waits and knock returns joined for her', async (t) => {
  const f = new Fixture({ policy: { waitingRoom: 'forced', waitingRoomMode: null } });
  f.room({ waitingRoom: 'all' });
  const result = await f.waiting.knock(arrive('r1', 'Mod', { claims: claims('moderator') }));
  t.equal(result.status, 'joined');
  t.equal(result.status === 'joined' && result.participant.role, 'moderator');
});

t.test('the name in the token wins over the typed one', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const result = await f.waiting.start(arrive('r1', 'typed', { claims: claims('participant', 'lms', 'From LMS') }));
  t.equal(result.status === 'joined' && result.participant.name, 'From LMS');
});

t.test('policy forced: a room stored as off verifies everyone', async (t) => {
  const f = new Fixture({ policy: { waitingRoom: 'forced', waitingRoomMode: null } });
  f.room({ waitingRoom: 'off' });
  t.same(await f.waiting.start(arrive('r1', 'Student', { claims: claims('participant', 'lms') })), { status: 'knock' });
});

t.test('policy off: nobody waits even in a room stored as all', async (t) => {
  const f = new Fixture({ policy: { waitingRoom: 'off', waitingRoomMode: null } });
  f.room({ waitingRoom: 'all' });
  t.equal((await f.waiting.knock(arrive('r1', 'Guest'))).status, 'joined');
});

t.test('policy mode: the instance mode overrides the room', async (t) => {
  const f = new Fixture({ policy: { waitingRoom: 'optional', waitingRoomMode: 'until_moderator' } });
  f.room({ waitingRoom: 'all', waitingRoomMode: 'approval' });
  await f.moderator();
  t.equal((await f.waiting.knock(arrive('r1', 'Guest'))).status, 'joined', 'until_moderator in force');
});

t.test('sub-groups never wait, even under a forced policy, but only the parent meeting enters them', async (t) => {
  const f = new Fixture({ policy: { waitingRoom: 'forced', waitingRoomMode: null } });
  f.room({ waitingRoom: 'off' });
  f.room({ roomId: 'r1-breakout-1', waitingRoom: 'all', parentRoomId: 'r1', accessCode: '4321' });
  await t.rejects(
    f.waiting.knock(arrive('r1-breakout-1', 'Stranger')),
    { code: 'subgroup_closed' },
    'a bare link is no side door',
  );
  await f.moderator();
  await f.waiting.admitAll('r1', { kind: 'api', name: 'ops' });
  const inParent = await f.waiting.knock(arrive('r1', 'Guest'));
  t.equal(inParent.status, 'waiting', 'the parent room verifies her');
  await f.waiting.admitAll('r1', { kind: 'api', name: 'ops' });
  const guest = f.meetings.present('r1').find((p) => p.name === 'Guest')!;
  const result = await f.waiting.knock(
    arrive('r1-breakout-1', 'Other name', { fromParticipantId: guest.participantId }),
  );
  t.equal(result.status, 'joined', 'no waiting and no code for someone moved from the meeting');
  t.equal(result.status === 'joined' && result.participant.name, 'Guest', 'she keeps her name from the meeting');
  t.equal(f.store.requests.size, 1, 'only the parent knock made a request');
  await f.meetings.leave(guest.participantId);
  await t.rejects(
    f.waiting.start(arrive('r1-breakout-1', 'Guest', { fromParticipantId: guest.participantId })),
    { code: 'subgroup_closed' },
    'not after leaving the meeting',
  );
  t.equal(
    (await f.waiting.start(arrive('r1-breakout-1', 'Mod2', { claims: claims('moderator') }))).status,
    'joined',
    'a moderator enters',
  );
  const teacher = f.meetings.present('r1').find((p) => p.role === 'moderator')!;
  const moved = await f.waiting.start(arrive('r1-breakout-1', 'x', { fromParticipantId: teacher.participantId }));
  t.equal(
    moved.status === 'joined' && moved.participant.role,
    'moderator',
    'a moderator moved from the meeting stays a moderator',
  );
});

t.test('unknown room', async (t) => {
  const f = new Fixture();
  await t.rejects(f.waiting.start(arrive('nope', 'Ann')), { code: 'room_not_found' });
  await t.rejects(f.waiting.knock(arrive('nope', 'Ann')), { code: 'room_not_found' });
  t.equal(await f.waiting.poll('nope', 'x'.repeat(43)), null);
});

t.test('name and note bounds are checked before anything is written', async (t) => {
  const f = new Fixture();
  f.room();
  await t.rejects(f.waiting.knock(arrive('r1', '')), { code: 'invalid_field', field: 'name' });
  await t.rejects(f.waiting.knock(arrive('r1', 'x'.repeat(65))), { code: 'invalid_field', field: 'name' });
  await t.rejects(f.waiting.knock(arrive('r1', 'Ann', { note: 'n'.repeat(281) })), {
    code: 'invalid_field',
    field: 'note',
  });
  await t.rejects(f.waiting.start(arrive('r1', '   ')), { code: 'invalid_field', field: 'name' });
  t.equal(f.store.writes, 0);
});

t.test('markup in name and note is stored and listed as typed', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  await f.knock('<img src=x onerror=alert(1)>', 'r1', { note: '<b>let me in</b>' });
  const [item] = await f.waiting.list('r1', { kind: 'participant', participantId: mod.participantId });
  t.equal(item?.name, '<img src=x onerror=alert(1)>');
  t.equal(item?.note, '<b>let me in</b>');
});

t.test('the first arrival starts the meeting; a knock alone starts it too', async (t) => {
  const f = new Fixture();
  f.room();
  t.equal(f.meetings.current('r1'), null);
  await f.waiting.start(arrive('r1', 'Guest'));
  t.equal(f.meetings.current('r1'), null, 'start answering knock creates nothing');
  await f.knock();
  const meeting = f.meetings.current('r1');
  t.ok(meeting);
  t.equal(meeting?.startedAt, f.clock.now().toISOString());
  await f.moderator();
  t.equal(f.meetings.current('r1')?.meetingId, meeting?.meetingId, 'same meeting');
});
