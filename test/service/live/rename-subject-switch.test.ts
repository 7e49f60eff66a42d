// Issue 14 point 3 over a real daemon's live socket: a participant's own rename, the meeting's
// subject and the waiting room switched off and on again; what each refuses. The daemon runs in
// the test's process; what survives kill -9 is in rename-subject-kill.test.ts.
import t from 'tap';
import { call, dataDirFor } from '../../helpers/api.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { connectLive, liveUrl, pause, refusedUpgrade } from '../../helpers/live.js';
import {
  asSession,
  attendanceRows,
  Browser,
  createRoom,
  knockAndAdmit,
  moderator,
  names,
  timeline,
} from '../../helpers/waiting.js';

t.test('a rename reaches everyone and is checked as at arrival; so is the subject', async (t) => {
  const first = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, first, { room_id: 'class', name: 'Class', waiting_room: 'all' });
  const mod = await moderator(first, 'class', 'Teacher');
  const ann = (await knockAndAdmit(first, 'class', mod, 'Ann')).session;
  const { client: modLive, welcome: modWelcome } = await connectLive(first, 'class', mod.session);
  t.equal(modWelcome.subject, '', 'no subject at first');
  const { client: annLive } = await connectLive(first, 'class', ann.session);
  await modLive.next('participant_joined');

  // A forged rename naming someone else renames nobody: the field is not part of the message
  // (closed live schemas), so the whole message is refused, naming it.
  annLive.send({ type: 'rename', name: 'Ann Smith', participant_id: mod.participantId });
  const forged = await annLive.next('error');
  t.equal(forged.code, 'invalid_message', 'a rename naming someone else is refused');
  t.match(forged.message, /participant_id/, 'the refusal names the field');
  annLive.send({ type: 'rename', name: 'Ann Smith' });
  const seenByMod = await modLive.next('state', (m) => m.participant.name === 'Ann Smith');
  t.equal(seenByMod.participant.participant_id, ann.participantId, 'the moderator sees Ann renamed');
  await annLive.next(
    'state',
    (m) => m.participant.participant_id === ann.participantId && m.participant.name === 'Ann Smith',
  );
  t.pass('Ann sees her own new name');
  t.notOk(
    modLive
      .all('state')
      .some((m) => m.participant.participant_id === mod.participantId && m.participant.name !== 'Teacher'),
    "the moderator's name is untouched",
  );

  for (const [bad, code] of [
    ['System', 'invalid_field'],
    ['Eve (moderator)', 'invalid_field'],
    ['x'.repeat(65), 'invalid_field'],
    ['   ', 'invalid_field'],
  ] as const) {
    annLive.send({ type: 'rename', name: bad });
    const refused = await annLive.next('error');
    t.equal(refused.code, code, `${JSON.stringify(bad.slice(0, 12))} refused: ${refused.message}`);
    t.match(refused.message, /^name /, 'the message names the field');
  }
  annLive.send({ type: 'rename', name: 42 });
  t.equal((await annLive.next('error')).code, 'invalid_message', 'a name that is not a string');
  await pause(200);
  t.notOk(
    modLive
      .all('state')
      .some((m) => m.participant.participant_id === ann.participantId && m.participant.name !== 'Ann Smith'),
    'no refused name reached the moderator',
  );

  // The subject: a participant is refused, the moderator's reaches everyone, as text.
  annLive.send({ type: 'subject', subject: 'Taken over' });
  t.equal((await annLive.next('error')).code, 'not_moderator', "a participant's subject is refused");
  const markup = '<img src=x onerror=alert(1)>';
  modLive.send({ type: 'subject', subject: markup });
  t.equal((await annLive.next('subject')).subject, markup, 'the participant is told the subject, as typed');
  t.equal((await modLive.next('subject')).subject, markup, 'the moderator too');
  t.notOk(
    modLive.all('subject').some((m) => m.subject === 'Taken over'),
    'the refused subject reached nobody',
  );
  modLive.send({ type: 'subject', subject: 'y'.repeat(129) });
  const tooLong = await modLive.next('error');
  t.equal(tooLong.code, 'invalid_field');
  t.match(tooLong.message, /^subject must be at most 128 characters/);
  modLive.send({ type: 'subject', subject: 'one\nline' });
  t.equal((await modLive.next('error')).code, 'invalid_field', 'a line break is refused');

  const sheet = (await attendanceRows(first, 'class')).flat();
  t.ok(
    sheet.includes('Ann Smith') && !sheet.includes('Ann'),
    `the attendance sheet has her new name: ${JSON.stringify(sheet)}`,
  );
  t.ok(
    (await timeline(first, 'class')).some((e) => e.kind === 'subject_changed' && e.actor?.name === 'Teacher'),
    'the subject is on the timeline',
  );
});

t.test('a flood of renames from one client reaches nobody beyond its window', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, d, { room_id: 'flood', name: 'Flood', waiting_room: 'all' });
  const mod = await moderator(d, 'flood', 'Teacher');
  const eve = (await knockAndAdmit(d, 'flood', mod, 'Eve')).session;
  const { client: modLive } = await connectLive(d, 'flood', mod.session);
  const { client: eveLive } = await connectLive(d, 'flood', eve.session);
  await modLive.next('participant_joined');
  const before = modLive.all('state').length;
  for (let i = 0; i < 200; i++) eveLive.send({ type: 'rename', name: `Eve ${i}` });
  await eveLive.until(
    () => (eveLive.all('error').filter((e) => e.code === 'rate_limited').length >= 195 ? true : undefined),
    'rate_limited errors',
  );
  await pause(300);
  const renames = modLive
    .all('state')
    .slice(before)
    .filter((m) => m.participant.participant_id === eve.participantId);
  t.equal(renames.length, 5, 'the moderator saw 5 renames (the window), not 200');
  t.same(
    renames.map((m) => m.participant.name),
    ['Eve 0', 'Eve 1', 'Eve 2', 'Eve 3', 'Eve 4'],
  );
  t.equal(eveLive.all('error').filter((e) => e.code === 'rate_limited').length, 195, 'the sender is told each time');
  t.match(eveLive.all('error')[0]?.message, /name changes/);
  // Her other messages still flow: the window is the renames'.
  eveLive.send({ type: 'chat', text: 'still here' });
  await modLive.next('chat', (m) => m.message.text === 'still here');
  t.pass('chat still works for her');
});

t.test('the waiting room switched off and on again from the live socket; refusals', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, d, { room_id: 'lobby', name: 'Lobby', waiting_room: 'all' });
  await createRoom(t, d, { room_id: 'open', name: 'Open', waiting_room: 'off' });
  const mod = await moderator(d, 'lobby', 'Teacher');
  const ann = (await knockAndAdmit(d, 'lobby', mod, 'Ann')).session;
  const { client: modLive } = await connectLive(d, 'lobby', mod.session);
  t.same(
    await modLive.next('waiting_room'),
    { type: 'waiting_room', enabled: true, switchable: true },
    'the moderator is told the switch on connect',
  );
  const { client: annLive } = await connectLive(d, 'lobby', ann.session);
  await pause(100);
  t.equal(annLive.all('waiting_room').length, 0, 'a participant is not sent the switch');

  // A participant forging the moderators' messages.
  annLive.send({ type: 'waiting_room', enabled: false });
  t.equal((await annLive.next('error')).code, 'not_moderator');
  annLive.send({ type: 'waiting_room', enabled: 'no' });
  t.equal((await annLive.next('error')).code, 'invalid_message');

  // A waiting person has no socket at all: her cookie opens nothing, she cannot rename or switch.
  const wendy = new Browser(d, 'lobby');
  t.equal((await wendy.knock({ name: 'Wendy' })).status, 202);
  const refused = await refusedUpgrade(liveUrl(d, 'lobby'), { cookie: `meet_wait=${wendy.cookie}` });
  t.equal(refused.status, 401, 'the waiting person cannot open the live socket');
  t.same(names(await asSession.list(d, 'lobby', mod.session)), ['Wendy'], 'moderators see her knock name');

  modLive.send({ type: 'waiting_room', enabled: false });
  t.same(await modLive.next('waiting_room'), { type: 'waiting_room', enabled: false, switchable: true }, 'off');
  await modLive.next('waiting_changes', (m) => m.removed.length === 1);
  t.equal((await wendy.poll()).body.status, 'admitted', 'switching off let Wendy in');
  const early = await call(d, '/room/lobby/start', { method: 'POST', token: null, json: { name: 'Early' } });
  t.equal(early.body.status, 'joined', 'an arrival while it is off enters');

  modLive.send({ type: 'waiting_room', enabled: true });
  t.same(await modLive.next('waiting_room'), { type: 'waiting_room', enabled: true, switchable: true }, 'on again');
  const late = new Browser(d, 'lobby');
  t.equal((await late.knock({ name: 'Late' })).status, 202, 'a later arrival waits');
  t.same(names(await asSession.list(d, 'lobby', mod.session)), ['Late']);
  await pause(100);
  t.equal(annLive.all('participant_left').length, 0, 'nobody already in was pushed out');
  const kinds = (await timeline(d, 'lobby')).map((e) => e.kind);
  t.same(
    kinds.filter((k) => k.startsWith('waiting_room')),
    ['waiting_room_disabled', 'waiting_room_enabled'],
    'both on the timeline',
  );
  modLive.send({ type: 'waiting_room', enabled: true });
  t.same(
    await modLive.next('waiting_room'),
    { type: 'waiting_room', enabled: true, switchable: true },
    'a second "on" answers the state to her',
  );

  // A switch over HTTP reaches the moderators' pages as well.
  t.equal((await asSession.disable(d, 'lobby', mod.session)).status, 200);
  t.same(
    await modLive.next('waiting_room'),
    { type: 'waiting_room', enabled: false, switchable: true },
    'a switch over HTTP is told too',
  );

  // A room without a waiting room: nothing to turn on.
  const openMod = await moderator(d, 'open', 'Host');
  const { client: openLive } = await connectLive(d, 'open', openMod.session);
  t.same(await openLive.next('waiting_room'), { type: 'waiting_room', enabled: false, switchable: false });
  openLive.send({ type: 'waiting_room', enabled: true });
  const unavailable = await openLive.next('error');
  t.equal(unavailable.code, 'waiting_room_unavailable');
  t.match(unavailable.message, /no waiting room/);
  t.equal(
    (await call(d, '/room/open/start', { method: 'POST', token: null, json: { name: 'Walk-in' } })).body.status,
    'joined',
    'arrivals still enter',
  );
});

t.test('under a forced instance the switch is on and not switchable', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_WAITING_ROOM: 'forced' });
  await createRoom(t, d, { room_id: 'exam', name: 'Exam' });
  const mod = await moderator(d, 'exam', 'Proctor');
  const { client } = await connectLive(d, 'exam', mod.session);
  t.same(await client.next('waiting_room'), { type: 'waiting_room', enabled: true, switchable: false });
  client.send({ type: 'waiting_room', enabled: false });
  t.equal((await client.next('error')).code, 'waiting_room_forced');
});
