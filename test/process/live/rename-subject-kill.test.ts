// Issue 14 point 3: a participant's own rename and the meeting's subject are committed before
// they are told, so both survive kill -9 of `meetctl serve` (its own process, killed with
// SIGKILL); the daemon that serves again runs in the test's process. What a rename and a
// subject refuse is checked in-process in rename-subject-switch.test.ts.
import t from 'tap';
import { daemonFor, dataDirFor } from '../../helpers/api.js';
import { stopDaemon } from '../../helpers/daemon.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { connectLive } from '../../helpers/live.js';
import { createRoom, knockAndAdmit, moderator, withAdminToken } from '../../helpers/waiting.js';

t.test('a rename and the subject survive kill -9', async (t) => {
  const dataDir = dataDirFor(t);
  const first = await daemonFor(t, { dataDir });
  await createRoom(t, first, { room_id: 'class', name: 'Class', waiting_room: 'all' });
  const mod = await moderator(first, 'class', 'Teacher');
  const ann = (await knockAndAdmit(first, 'class', mod, 'Ann')).session;
  const { client: modLive } = await connectLive(first, 'class', mod.session);
  const { client: annLive } = await connectLive(first, 'class', ann.session);
  await modLive.next('participant_joined');

  annLive.send({ type: 'rename', name: 'Ann Smith' });
  await modLive.next(
    'state',
    (m) => m.participant.participant_id === ann.participantId && m.participant.name === 'Ann Smith',
  );
  const markup = '<img src=x onerror=alert(1)>';
  modLive.send({ type: 'subject', subject: markup });
  t.equal((await annLive.next('subject')).subject, markup, 'the subject was told');

  t.equal(await stopDaemon(first, 'SIGKILL'), 'SIGKILL', 'killed with SIGKILL');
  const second = withAdminToken(await inProcessDaemonFor(t, dataDir), first.adminToken);
  const { client: annAgain, welcome: annWelcome } = await connectLive(second, 'class', ann.session);
  t.equal(annWelcome.self.name, 'Ann Smith', 'her name after the restart');
  t.equal(annWelcome.subject, markup, 'the subject after the restart');
  const { welcome: modAgain } = await connectLive(second, 'class', mod.session);
  t.equal(
    modAgain.participants.find((p) => p.participant_id === ann.participantId)?.name,
    'Ann Smith',
    'the others see it too',
  );
  await annAgain.close();
});
