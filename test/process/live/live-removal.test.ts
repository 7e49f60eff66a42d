// A moderator's removal over a real daemon's live socket: the removed socket closes with 4403
// after its `removed` message, her old session opens nothing any more (not the socket, not her
// kept cookie's poll), also after kill -9, and she knocks again like any arrival.
import t from 'tap';
import { closeCodes } from '../../../src/protocol/live.js';
import { daemonFor, dataDirFor } from '../../helpers/api.js';
import { stopDaemon } from '../../helpers/daemon.js';
import { connectLive, liveUrl, refusedUpgrade } from '../../helpers/live.js';
import { Browser, createRoom, knockAndAdmit, moderator, timeline, withAdminToken } from '../../helpers/waiting.js';

t.test('removed: closed with 4403, her session and cookie spent across kill -9, she knocks again', async (t) => {
  const dataDir = dataDirFor(t);
  const first = await daemonFor(t, { dataDir });
  await createRoom(t, first, { room_id: 'class', name: 'Class', waiting_room: 'all' });
  const mod = await moderator(first, 'class', 'Teacher');
  const ann = await knockAndAdmit(first, 'class', mod, 'Ann');
  const ben = await knockAndAdmit(first, 'class', mod, 'Ben');
  const { client: modLive } = await connectLive(first, 'class', mod.session);
  const { client: annLive } = await connectLive(first, 'class', ann.session.session);
  const { client: benLive } = await connectLive(first, 'class', ben.session.session);
  await modLive.next('participant_joined', (m) => m.participant.name === 'Ben');

  // Abuse first: a participant, a forged id, herself.
  benLive.send({ type: 'remove', participant_id: ann.session.participantId });
  t.equal((await benLive.next('error')).code, 'not_moderator', 'a participant cannot remove');
  modLive.send({ type: 'remove', participant_id: 'p-forged' });
  t.equal((await modLive.next('error')).code, 'participant_not_found', 'a forged id');
  modLive.send({ type: 'remove', participant_id: mod.participantId });
  t.equal((await modLive.next('error')).code, 'invalid_field', 'not herself');

  modLive.send({ type: 'remove', participant_id: ann.session.participantId });
  const removed = { type: 'removed', participant_id: ann.session.participantId, by: mod.participantId };
  t.same(await annLive.next('removed'), removed, 'she is told');
  t.same(
    await annLive.closed,
    { code: closeCodes.removed, reason: 'a moderator removed you from the meeting' },
    'her socket closes with 4403',
  );
  t.same(await benLive.next('removed'), removed, 'the others are told');
  await benLive.next('participant_left', (m) => m.participant_id === ann.session.participantId);
  modLive.send({ type: 'remove', participant_id: ann.session.participantId });
  t.equal((await modLive.next('error')).code, 'participant_not_found', 'a second removal finds nobody');

  const refused = await refusedUpgrade(liveUrl(first, 'class', ann.session.session));
  t.equal(refused.status, 401, 'a reconnect with her old session is refused');
  t.equal((await ann.browser.poll()).status, 404, 'her kept cookie mints no session');
  t.match(
    (await timeline(first, 'class')).find((e) => e.kind === 'participant_removed'),
    { actor: { name: 'Teacher' }, subject: { name: 'Ann' } },
    'the timeline says who removed whom',
  );

  t.equal(await stopDaemon(first, 'SIGKILL'), 'SIGKILL', 'killed with SIGKILL');
  const second = withAdminToken(await daemonFor(t, { dataDir }), first.adminToken);
  t.equal(
    (await refusedUpgrade(liveUrl(second, 'class', ann.session.session))).status,
    401,
    'still refused after the restart',
  );
  // The same browser, cookie and all, against the restarted daemon.
  const annBrowser = new Browser(second, 'class');
  annBrowser.setCookie(ann.browser.cookie);
  t.equal((await annBrowser.poll()).status, 404, 'her cookie still finds nothing');
  const { welcome } = await connectLive(second, 'class', ben.session.session);
  t.notOk(
    welcome.participants.some((p) => p.participant_id === ann.session.participantId),
    'she is not among the participants',
  );
  const again = await annBrowser.knock({ name: 'Ann' });
  t.equal(again.status, 202, 'she knocks again and waits, like any arrival');
});
