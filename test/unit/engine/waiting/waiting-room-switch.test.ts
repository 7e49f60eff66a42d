import t from 'tap';
import { Fixture, api, arrive, by } from '../../../helpers/engine-fixture.js';

/** Records what the live connection is told: a switch, as (roomId, meetingId). */
function switches(f: Fixture): string[] {
  const seen: string[] = [];
  f.waiting.onWaitingRoomSwitched((roomId) => seen.push(roomId));
  return seen;
}

t.test(
  'enable after disable: later arrivals wait again, nobody in is moved out, on the timeline, kept across a restart',
  async (t) => {
    const f = new Fixture();
    f.room();
    const mod = await f.moderator();
    const told = switches(f);
    t.same(await f.waiting.switchState('r1'), { enabled: true, switchable: true });
    await f.waiting.disableWaitingRoom('r1', by(mod.participantId));
    t.same(await f.waiting.switchState('r1'), { enabled: false, switchable: true });
    const early = await f.waiting.knock(arrive('r1', 'Early'));
    t.equal(early.status, 'joined', 'in while it is off');

    t.same(await f.waiting.enableWaitingRoom('r1', by(mod.participantId)), { enabled: true });
    t.equal(f.meetings.current('r1')?.waitingDisabled, false);
    t.same(await f.waiting.switchState('r1'), { enabled: true, switchable: true });
    t.same(told, ['r1', 'r1'], 'each switch told once');
    t.equal(f.meetings.present('r1').length, 2, 'who entered while it was off stays');
    t.equal((await f.waiting.knock(arrive('r1', 'Late'))).status, 'waiting', 'a later arrival waits');
    t.match(
      (await f.kinds()).filter((k) => k.startsWith('waiting_room')),
      ['waiting_room_disabled', 'waiting_room_enabled'],
    );
    t.match(
      (await f.meetings.timeline('r1')).find((e) => e.kind === 'waiting_room_enabled'),
      { actor: { kind: 'participant', name: 'Mod' } },
    );

    t.same(await f.waiting.enableWaitingRoom('r1', by(mod.participantId)), { enabled: true }, 'idempotent');
    t.equal((await f.kinds()).filter((k) => k === 'waiting_room_enabled').length, 1, 'a second enable writes nothing');
    t.same(told, ['r1', 'r1'], 'and tells nobody');

    await f.waiting.disableWaitingRoom('r1', api());
    f.restart();
    t.equal(f.meetings.current('r1')?.waitingDisabled, true, 'the last switch is on disk');
    await f.waiting.enableWaitingRoom('r1', api());
    f.restart();
    t.equal(f.meetings.current('r1')?.waitingDisabled, false);
    t.equal((await f.waiting.knock(arrive('r1', 'After restart'))).status, 'waiting');
  },
);

t.test('enable is for moderators; a room without a waiting room refuses it', async (t) => {
  const f = new Fixture();
  f.room({ waitingRoom: 'off' });
  const mod = await f.moderator();
  const guest = await f.waiting.start(arrive('r1', 'Guest'));
  const guestId = guest.status === 'joined' ? guest.participant.participantId : '';
  await t.rejects(
    () => f.waiting.enableWaitingRoom('r1', by(guestId)),
    { code: 'not_moderator' },
    'a participant learns nothing of the setting',
  );
  await t.rejects(() => f.waiting.enableWaitingRoom('r1', by(mod.participantId)), { code: 'waiting_room_unavailable' });
  t.same(await f.waiting.switchState('r1'), { enabled: false, switchable: false });
  t.notOk((await f.kinds()).includes('waiting_room_enabled'));

  const policyOff = new Fixture({ policy: { waitingRoom: 'off', waitingRoomMode: null } });
  policyOff.room({ waitingRoom: 'all' });
  await policyOff.moderator();
  await t.rejects(
    () => policyOff.waiting.enableWaitingRoom('r1', api()),
    { code: 'waiting_room_unavailable' },
    'the instance has none',
  );

  const sub = new Fixture();
  sub.room();
  sub.room({ roomId: 'r1-g1', parentRoomId: 'r1' });
  const subMod = await sub.moderator('r1-g1');
  await t.rejects(
    () => sub.waiting.enableWaitingRoom('r1-g1', by(subMod.participantId)),
    { code: 'waiting_room_unavailable' },
    'sub-groups never wait',
  );

  const none = new Fixture();
  none.room();
  await t.rejects(() => none.waiting.enableWaitingRoom('r1', api()), { code: 'meeting_not_found' });
});

t.test('under a forced policy the waiting room is on and not switchable', async (t) => {
  const f = new Fixture({ policy: { waitingRoom: 'forced', waitingRoomMode: null } });
  f.room();
  const mod = await f.moderator();
  t.same(await f.waiting.switchState('r1'), { enabled: true, switchable: false });
  t.same(await f.waiting.enableWaitingRoom('r1', by(mod.participantId)), { enabled: true }, 'on already');
  await t.rejects(() => f.waiting.disableWaitingRoom('r1', by(mod.participantId)), { code: 'waiting_room_forced' });
});

t.test('a failed commit leaves the waiting room off', async (t) => {
  const f = new Fixture();
  f.room();
  const mod = await f.moderator();
  await f.waiting.disableWaitingRoom('r1', by(mod.participantId));
  const told = switches(f);
  f.store.commitError = new Error('disk full');
  await t.rejects(() => f.waiting.enableWaitingRoom('r1', by(mod.participantId)), /disk full/);
  t.equal(f.meetings.current('r1')?.waitingDisabled, true);
  t.same(told, [], 'nobody told of a switch that did not happen');
});
