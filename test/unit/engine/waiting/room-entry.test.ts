import t from 'tap';
import { Fixture, arrive, claims } from '../../../helpers/engine-fixture.js';

t.test('a closed room answers every arrival as if it did not exist', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off', entry: 'closed' });
  await t.rejects(f.waiting.start(arrive('r1', 'Bare')), { code: 'room_not_found' });
  await t.rejects(f.waiting.start(arrive('r1', 'Student', { claims: claims('participant', 'lms') })), {
    code: 'room_not_found',
  });
  await t.rejects(
    f.waiting.knock(arrive('r1', 'Mod', { claims: claims('moderator', 'lms') })),
    { code: 'room_not_found' },
    'a moderator token too',
  );
  t.equal(f.meetings.current('r1'), null, 'no meeting was opened');
});

t.test('a token-only room refuses bare arrivals and lets token holders in by its scope', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'guests', entry: 'token' });
  await t.rejects(f.waiting.start(arrive('r1', 'Bare')), { code: 'guest_denied' });
  await t.rejects(f.waiting.knock(arrive('r1', 'Bare')), { code: 'guest_denied' });
  t.equal((await f.waiting.start(arrive('r1', 'Student', { claims: claims('participant', 'lms') }))).status, 'joined');
  t.same(
    await f.waiting.start(arrive('r1', 'Guest link', { claims: claims('participant', 'link') })),
    { status: 'knock' },
    'a guest link waits',
  );
  t.equal(f.store.requests.size, 0);
});

t.test('an open room is unchanged: bare arrivals follow the scope', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'guests' });
  t.same(await f.waiting.start(arrive('r1', 'Bare')), { status: 'knock' });
});
