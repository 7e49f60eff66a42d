import t from 'tap';
import type { Room } from '../../../../src/engine/rooms/room.js';
import {
  effectiveMode,
  effectiveScope,
  mustWait,
  needsAccessCode,
  type AdmissionContext,
} from '../../../../src/engine/waiting/admission.js';
import { claims } from '../../../helpers/engine-fixture.js';

const room = (fields: Partial<Room> = {}): Room => ({
  roomId: 'r',
  name: 'R',
  waitingRoom: 'all',
  waitingRoomMode: 'approval',
  waitingRoomTimeoutSecs: 600,
  moderatorLinkTtlSecs: 10_368_000,
  accessCodeHash: null,
  parentRoomId: null,
  entry: 'open',
  unlisted: false,
  moderatorSuccession: false,
  ephemeral: false,
  micsOffOnEntry: false,
  ownerAccountId: null,
  createdAt: '',
  updatedAt: '',
  ...fields,
});

const base: AdmissionContext = {
  scope: 'all',
  mode: 'approval',
  claims: null,
  subgroup: false,
  waitingDisabled: false,
  moderatorPresent: false,
  entersAsModerator: false,
};

t.test('scope decides who waits', async (t) => {
  const guest = null;
  const linkParticipant = claims('participant', 'link');
  const lms = claims('participant', 'lms');
  const integration = claims('participant', 'integration');
  const moderator = claims('moderator', 'link');
  const cases: [AdmissionContext['scope'], unknown, boolean][] = [
    ['off', guest, false],
    ['off', linkParticipant, false],
    ['guests', guest, true],
    ['guests', linkParticipant, true],
    ['guests', lms, false],
    ['guests', integration, false],
    ['guests', moderator, false],
    ['all', guest, true],
    ['all', linkParticipant, true],
    ['all', lms, true],
    ['all', integration, true],
    ['all', moderator, false],
  ];
  for (const [scope, who, waits] of cases) {
    t.equal(
      mustWait({ ...base, scope, claims: who as AdmissionContext['claims'] }),
      waits,
      `${scope} / ${JSON.stringify(who)}`,
    );
  }
});

t.test('a moderator from any source never waits', async (t) => {
  for (const source of ['link', 'lms', 'integration'] as const) {
    t.notOk(mustWait({ ...base, claims: claims('moderator', source) }), source);
  }
});

t.test('sub-groups never wait, whatever the scope', async (t) => {
  t.notOk(mustWait({ ...base, scope: 'all', subgroup: true }));
  t.notOk(mustWait({ ...base, scope: 'guests', subgroup: true }));
});

t.test('until_moderator: direct entry only while a moderator is present', async (t) => {
  t.ok(mustWait({ ...base, mode: 'until_moderator', moderatorPresent: false }));
  t.notOk(mustWait({ ...base, mode: 'until_moderator', moderatorPresent: true }));
  t.ok(mustWait({ ...base, mode: 'approval', moderatorPresent: true }), 'approval ignores presence');
});

t.test("a room's next moderator (moderator succession) never waits, whatever the scope and mode", async (t) => {
  for (const scope of ['guests', 'all'] as const) {
    for (const mode of ['approval', 'until_moderator'] as const)
      t.notOk(mustWait({ ...base, scope, mode, entersAsModerator: true }), `${scope} / ${mode}`);
  }
});

t.test('a disabled waiting room lets everyone in', async (t) => {
  t.notOk(mustWait({ ...base, waitingDisabled: true }));
});

t.test('instance policy: forced turns a stored off into all; off turns everything off', async (t) => {
  t.equal(effectiveScope({ waitingRoom: 'forced', waitingRoomMode: null }, room({ waitingRoom: 'off' })), 'all');
  t.equal(effectiveScope({ waitingRoom: 'forced', waitingRoomMode: null }, room({ waitingRoom: 'guests' })), 'guests');
  t.equal(effectiveScope({ waitingRoom: 'off', waitingRoomMode: null }, room({ waitingRoom: 'all' })), 'off');
  t.equal(
    effectiveScope({ waitingRoom: 'optional', waitingRoomMode: null }, room({ waitingRoom: 'guests' })),
    'guests',
  );
  t.equal(effectiveMode({ waitingRoom: 'optional', waitingRoomMode: 'until_moderator' }, room()), 'until_moderator');
  t.equal(effectiveMode({ waitingRoom: 'optional', waitingRoomMode: null }, room()), 'approval');
});

t.test('the access code is asked of guests and link participants only', async (t) => {
  const coded = room({ accessCodeHash: 'scrypt$x$y' });
  t.ok(needsAccessCode(coded, null));
  t.ok(needsAccessCode(coded, claims('participant', 'link')));
  t.notOk(needsAccessCode(coded, claims('participant', 'lms')));
  t.notOk(needsAccessCode(coded, claims('participant', 'integration')));
  t.notOk(needsAccessCode(coded, claims('moderator', 'link')));
  t.notOk(needsAccessCode(room(), null), 'no code, nothing to ask');
});
