// A meeting's statistics after kill -9 of `meetctl serve` (its own process, killed with SIGKILL):
// what was running (webcam, talk) ends when the daemon, here in the test's process, serves
// again. The statistics themselves are checked in-process in live-stats.test.ts.
import t from 'tap';
import { call, dataDirFor, stopGracefully } from '../../helpers/api.js';
import { startDaemon } from '../../helpers/daemon.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { statsIn } from '../../helpers/stored-stats.js';
import { connectLive, pause } from '../../helpers/live.js';
import { admittedSession, claimsOf, createRoom } from '../../helpers/waiting.js';

t.test('after kill -9, what was running ends when the daemon serves again', async (t) => {
  const dataDir = dataDirFor(t);
  const first = await startDaemon({ dataDir });
  t.teardown(() => stopGracefully(first));
  await createRoom(t, first, { room_id: 'room', name: 'Room', waiting_room: 'off' });
  const ann = admittedSession(
    await call(first, '/room/room/start', { method: 'POST', token: null, json: { name: 'Ann' } }),
    'Ann',
  );
  const a = await connectLive(first, 'room', ann.session);
  a.client.send({ type: 'state', audio: true, video: true, screen: false });
  await a.client.next('state');
  a.client.send({ type: 'speaking', speaking: true });
  // Speaking is recorded with the room's next flush, 250 ms after the state went out.
  await pause(400);
  a.client.send({ type: 'chat', text: 'sync' });
  await a.client.next('chat');
  const killedAt = Date.now();
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await inProcessDaemonFor(t, dataDir);
  const restartedAt = Date.now();
  await second.stop();
  t.pass('the restarted daemon stopped');
  const [annStats] = await statsIn(dataDir, String(claimsOf(ann.session).meeting));
  t.match(annStats, { audio: false, video: false, talking: false, chatMessages: 1 });
  const endedAt = Date.parse(annStats?.webcams[0]?.endedAt ?? '');
  t.ok(endedAt >= killedAt && endedAt <= restartedAt + 1_000, 'the webcam interval ends at the restart');
  t.ok(
    annStats!.talkTimeMs > 0 && annStats!.talkTimeMs < restartedAt - killedAt + 10_000,
    `talk time up to the restart (${annStats?.talkTimeMs} ms)`,
  );
});
