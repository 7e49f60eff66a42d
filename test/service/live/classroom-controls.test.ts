// Issue 31 point 10 over a real daemon's live socket: raise and lower a hand, reactions (and a
// flood of them), a moderator muting someone, and ending the meeting for everyone, durably. Each
// moderator gesture sent by a participant is refused with the stable `not_moderator`.
import t from 'tap';
import { call, dataDirFor } from '../../helpers/api.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';
import { connectLive, liveUrl, refusedUpgrade } from '../../helpers/live.js';
import { createRoom, knockAndAdmit, moderator, timeline, withAdminToken } from '../../helpers/waiting.js';

t.test('hands, reactions, mute and the end of the meeting, with who may send each', async (t) => {
  const dataDir = dataDirFor(t);
  const first = await inProcessDaemonFor(t, dataDir);
  await createRoom(t, first, { room_id: 'lesson', name: 'Lesson', waiting_room: 'all' });
  const mod = await moderator(first, 'lesson', 'Ms Keller');
  const ann = (await knockAndAdmit(first, 'lesson', mod, 'Ann')).session;
  const ben = (await knockAndAdmit(first, 'lesson', mod, 'Ben')).session;
  const { client: modLive } = await connectLive(first, 'lesson', mod.session);
  t.same((await modLive.next('hands')).hands, [], 'the hands come after the welcome: none raised');
  const { client: annLive } = await connectLive(first, 'lesson', ann.session);
  await annLive.next('hands');
  const { client: benLive } = await connectLive(first, 'lesson', ben.session);
  await benLive.next('hands');
  await modLive.next('participant_joined', (m) => m.participant.participant_id === ben.participantId);

  // Hands: in raising order, to everyone.
  benLive.send({ type: 'hand', raised: true });
  await modLive.next('hands', (m) => m.hands.length === 1);
  annLive.send({ type: 'hand', raised: true });
  const both = await modLive.next('hands', (m) => m.hands.length === 2);
  t.same(
    both.hands.map((h) => h.participant_id),
    [ben.participantId, ann.participantId],
    'the moderator sees Ben first: he raised first',
  );
  t.ok(
    both.hands.every((h) => !Number.isNaN(Date.parse(h.raised_at))),
    'each hand says when it went up',
  );
  await annLive.next('hands', (m) => m.hands.length === 2);
  t.pass('a participant is told the hands too (the mark on the tile)');
  annLive.send({ type: 'hand', raised: true, participant_id: ben.participantId });
  const forged = await annLive.next('error');
  t.equal(forged.code, 'invalid_message', 'a hand naming someone else is refused as a whole');
  t.match(forged.message, /participant_id/, 'naming the field');

  // A participant may not lower another's hand, mute anyone or end the meeting.
  for (const gesture of [
    { type: 'lower_hand', participant_id: ben.participantId },
    { type: 'mute', participant_id: ben.participantId },
    { type: 'end_meeting' },
  ] as const) {
    annLive.send(gesture);
    const refused = await annLive.next('error');
    t.equal(refused.code, 'not_moderator', `a participant's ${gesture.type} is refused`);
  }
  annLive.send({ type: 'unmute', participant_id: ben.participantId });
  t.equal((await annLive.next('error')).code, 'invalid_message', 'there is no unmute to send, for anyone');
  modLive.send({ type: 'unmute', participant_id: ben.participantId });
  t.equal((await modLive.next('error')).code, 'invalid_message', 'not even for a moderator');
  t.equal(benLive.all('muted').length, 0, 'nobody muted Ben on a participant word');

  // The moderator lowers Ben's hand; Ann lowers her own.
  modLive.send({ type: 'lower_hand', participant_id: ben.participantId });
  const lowered = await benLive.next(
    'hands',
    (m) => m.hands.length === 1 && m.hands[0]?.participant_id !== ben.participantId,
  );
  t.same(
    lowered.hands.map((h) => h.participant_id),
    [ann.participantId],
    "Ben's hand is down",
  );
  modLive.send({ type: 'lower_hand', participant_id: 'nobody-here' });
  t.equal((await modLive.next('error')).code, 'participant_not_found', 'a hand of nobody present');
  annLive.send({ type: 'hand', raised: false });
  await modLive.next('hands', (m) => m.hands.length === 0);
  t.pass('Ann lowered her own hand');

  // Mute: only she is told, and by whom; a moderator cannot mute herself this way.
  annLive.send({ type: 'state', audio: true, video: false, screen: false });
  await modLive.next('state', (m) => m.participant.participant_id === ann.participantId && m.participant.audio);
  modLive.send({ type: 'mute', participant_id: ann.participantId });
  const muted = await annLive.next('muted');
  t.same(muted, { type: 'muted', by: mod.participantId, by_name: 'Ms Keller' }, 'Ann is told who muted her');
  modLive.send({ type: 'mute', participant_id: mod.participantId });
  t.equal((await modLive.next('error')).code, 'invalid_field', 'a moderator mutes herself with her own button');
  modLive.send({ type: 'mute', participant_id: 'nobody-here' });
  t.equal((await modLive.next('error')).code, 'participant_not_found');
  t.equal(benLive.all('muted').length, 0, 'Ben is not told of Ann being muted');
  const mutes = (await timeline(first, 'lesson')).filter((e) => e.kind === 'participant_muted');
  t.equal(mutes.length, 1, 'the timeline records the mute, once (not the refused ones)');
  t.match(
    mutes[0],
    {
      actor: { kind: 'participant', participant_id: mod.participantId, name: 'Ms Keller' },
      subject: { request_id: null, participant_id: ann.participantId, name: 'Ann' },
    },
    'who muted whom',
  );
  t.ok(Math.abs(Date.parse(mutes[0]!.at) - Date.now()) < 60_000, 'and when');

  // Reactions: to everyone, her too; a flood from one person is cut by her window.
  benLive.send({ type: 'react', reaction: 'celebrate' });
  t.same(
    await modLive.next('reaction'),
    { type: 'reaction', participant_id: ben.participantId, reaction: 'celebrate' },
    'a reaction reaches everyone',
  );
  await benLive.next('reaction');
  benLive.send({ type: 'react', reaction: '<b>boo</b>' });
  const notOne = await benLive.next('error');
  t.equal(notOne.code, 'invalid_message', 'only the handful of reactions');
  t.match(notOne.message, /thumbs_up, thumbs_down, clap, celebrate, laugh, surprised, heart/, 'the refusal lists them');
  for (let i = 0; i < 100; i++) benLive.send({ type: 'react', reaction: 'heart' });
  await benLive.next('error', (e) => e.code === 'rate_limited');
  benLive.send({ type: 'chat', text: 'sync' });
  await modLive.next('chat', (m) => m.message.text === 'sync');
  const hearts = modLive.all('reaction').filter((r) => r.reaction === 'heart').length;
  t.equal(hearts, 9, 'the moderator saw 9 hearts (10 a window, one celebration before), not 100');
  t.equal(benLive.all('error').filter((e) => e.code === 'rate_limited').length, 1, 'Ben is told once');
  t.equal(annLive.all('reaction').length, 10, 'Ann saw the same ten');

  // The end, for everyone: told, closed with 4410, on the timeline with her name, and a restart does not bring it back.
  modLive.send({ type: 'end_meeting' });
  for (const [who, live] of [
    ['Ann', annLive],
    ['Ben', benLive],
    ['the moderator', modLive],
  ] as const) {
    await live.next('ended');
    t.equal((await live.closed).code, 4410, `${who} is told the meeting ended, and the socket closes`);
  }
  const ended = (await timeline(first, 'lesson')).find((e) => e.kind === 'meeting_ended');
  t.equal(ended?.actor?.name, 'Ms Keller', 'the timeline says who ended it');
  await first.stop();

  const second = withAdminToken(await inProcessDaemonFor(t, dataDir), first.adminToken);
  t.equal(
    (await refusedUpgrade(liveUrl(second, 'lesson', ann.session))).status,
    401,
    "after a restart Ann's session opens no meeting",
  );
  t.ok(
    (await timeline(second, 'lesson')).some((e) => e.kind === 'meeting_ended' && e.actor?.name === 'Ms Keller'),
    'the end is still on the timeline after the restart',
  );
  t.ok(
    (await timeline(second, 'lesson')).some((e) => e.kind === 'participant_muted' && e.subject?.name === 'Ann'),
    'so is the mute',
  );
});

t.test("ending a main room's meeting ends its sub-groups' too", async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  await createRoom(t, d, { room_id: 'main', name: 'Main', waiting_room: 'all' });
  const mod = await moderator(d, 'main', 'Ms Keller');
  const ann = (await knockAndAdmit(d, 'main', mod, 'Ann')).session;
  const { client: modLive } = await connectLive(d, 'main', mod.session);
  const { client: annLive } = await connectLive(d, 'main', ann.session);
  modLive.send({ type: 'create_subgroups', count: 1 });
  const [group] = (await annLive.next('subgroups', (m) => m.subgroups.length === 1)).subgroups;
  modLive.send({ type: 'move', participant_id: ann.participantId, room_id: group! });
  await annLive.next('move');
  const sub = (await call(d, `/room/${group}/start`, { method: 'POST', token: ann.session, json: {} })).body as {
    session: string;
  };
  await annLive.close();
  const { client: inGroup } = await connectLive(d, group!, sub.session);
  modLive.send({ type: 'end_meeting' });
  await inGroup.next('ended');
  t.equal((await inGroup.closed).code, 4410, "Ann's page in the sub-group is told the end too");
});
