import t from 'tap';
import { assertError, dataDirFor } from '../../helpers/api.js';
import { FakeClock, FakeScheduler } from '../../helpers/fake-clock.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { connectLive, liveUrl, refusedUpgrade } from '../../helpers/live.js';
import { admittedSession, asSession, Browser, createRoom, moderator } from '../../helpers/waiting.js';

// Audit issue 11, point 6: a session is a stateless JWT valid for hours; leaving the meeting
// must end what it grants (waiting list, admitting, the live socket), not only presence.
// The daemon runs in the test's process (real sockets); the leave grace on a scheduler the test moves.
t.test('after POST /leave the session reads no waiting list, admits nobody and opens no socket', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, d, { room_id: 'class', name: 'Class', waiting_room: 'all' });
  const mallory = await moderator(d, 'class', 'Mallory');
  // A second moderator keeps the meeting open after Mallory leaves.
  const ann = await moderator(d, 'class', 'Ann');
  const m = await connectLive(d, 'class', mallory.session);
  const wendy = new Browser(d, 'class');
  t.equal((await wendy.knock({ name: 'Wendy', note: '' })).status, 202);
  const list = await asSession.list(d, 'class', mallory.session);
  t.equal(list.status, 200, 'before leaving, the moderator reads the waiting list');
  const requestId: string = list.body[0].request_id;

  t.equal((await asSession.leave(d, 'class', mallory.session)).status, 204);
  t.equal((await m.client.closed).code, 1000, 'her socket is closed');

  assertError(t, await asSession.list(d, 'class', mallory.session), 401, 'unauthorized');
  assertError(t, await asSession.admit(d, 'class', mallory.session, { request_id: requestId }), 401, 'unauthorized');
  assertError(t, await asSession.admit(d, 'class', mallory.session, { all: true }), 401, 'unauthorized');
  assertError(t, await asSession.disable(d, 'class', mallory.session), 401, 'unauthorized');
  assertError(t, await asSession.leave(d, 'class', mallory.session), 401, 'unauthorized');
  const upgrade = await refusedUpgrade(liveUrl(d, 'class', mallory.session));
  t.equal(upgrade.status, 401, 'the live socket upgrade is refused');
  t.equal(upgrade.body?.error?.code, 'unauthorized');
  const header = await refusedUpgrade(liveUrl(d, 'class'), { authorization: `Bearer ${mallory.session}` });
  t.equal(header.status, 401, 'also when the session comes as a bearer header');

  t.same((await wendy.poll()).body, { status: 'waiting' }, 'Wendy was not admitted by the old session');
  t.equal((await asSession.list(d, 'class', ann.session)).status, 200, 'the other moderator keeps her powers');
});

t.test('a reload within the grace period keeps the session; once the grace is over it is ended', async (t) => {
  const scheduler = new FakeScheduler(new FakeClock());
  const d = await inProcessDaemonFor(t, dataDirFor(t), {}, { scheduler });
  const leftBy = (pid: string) => (m: { participant_id: string }) => m.participant_id === pid;
  await createRoom(t, d, { room_id: 'room', name: 'Room', waiting_room: 'all' });
  const mod = await moderator(d, 'room', 'Mod');
  const pia = new Browser(d, 'room');
  t.equal((await pia.knock({ name: 'Pia', note: '' })).status, 202);
  t.same((await asSession.admit(d, 'room', mod.session, { all: true })).body, { admitted: 1 });
  const pupil = admittedSession(await pia.poll(), 'Pia');

  const first = await connectLive(d, 'room', mod.session);
  await first.client.close();
  // The page reloads: the socket is gone for a moment, no POST /leave.
  t.equal(
    (await asSession.list(d, 'room', mod.session)).status,
    200,
    'between the two sockets the session still works',
  );
  const reloaded = await connectLive(d, 'room', mod.session);
  t.equal(reloaded.welcome.self.participant_id, mod.participantId, 'the reloaded page reopens the socket');

  // Pia's page reloads too: her cookie still gives her the session of the same participant.
  const p = await connectLive(d, 'room', pupil.session);
  await p.client.close();
  // The server took the close (its grace timer runs from there) once the moderator hears of it.
  await reloaded.client.next('participant_left', leftBy(pupil.participantId));
  const again = admittedSession(await pia.poll(), 'Pia');
  t.equal(again.participantId, pupil.participantId, 'a reload within the grace period is the same participant');
  const p2 = await connectLive(d, 'room', again.session);

  // Pia closes the tab: after the grace period she has left, and neither the session nor the
  // cookie brings her back without passing the door again.
  await p2.client.close();
  await reloaded.client.next('participant_left', leftBy(pupil.participantId));
  scheduler.advance(5_500);
  const upgrade = await refusedUpgrade(liveUrl(d, 'room', pupil.session));
  t.equal(upgrade.status, 401, 'a session whose participant left after the grace period opens no socket');
  assertError(t, await pia.poll(), 404, 'not_found');
  t.equal(
    (await asSession.list(d, 'room', mod.session)).status,
    200,
    'the moderator, still connected, keeps her session',
  );
  await reloaded.client.close();
});
