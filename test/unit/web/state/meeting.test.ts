// Issue 30 point 3: the meeting as a reducer (src/web/state/meeting.ts): the live socket's
// messages and her own gestures in, the state and what the view does out, without a browser:
// join and leave, renames, roles and locks, removal, a reconnection's welcome, media state.
import t from 'tap';
import type { Locks, ServerMessage } from '../../../../src/protocol/live.js';
import {
  anyoneSharing,
  groupOf,
  hideGroupMessage,
  initialMeeting,
  isModerator,
  mayAudio,
  mayVideo,
  receive,
  shareScreen,
  toggleAudio,
  toggleVideo,
  type MeetingEffect,
  type MeetingState,
} from '../../../../src/web/state/meeting.js';
import { person, welcomeOf } from '../../../helpers/meeting-messages.js';

const open: Locks = { mic: false, cam: false, cams_moderators_only: false };
const ada = person('p1', 'Ada');
const bea = person('p2', 'Bea');
const cy = person('p3', 'Cy', 'moderator');

function welcome(extra: Partial<Extract<ServerMessage, { type: 'welcome' }>> = {}): ServerMessage {
  return welcomeOf(ada, {
    participants: [bea, cy],
    locks: open,
    chat: [
      {
        from: { participant_id: 'p2', name: 'Bea', role: 'participant', system: false },
        text: 'hi',
        at: '2026-11-27T14:00:00Z',
      },
    ],
    ...extra,
  });
}

/** Feeds messages in order; returns the last state and the effects of each step. */
function run(messages: ServerMessage[], from: MeetingState = initialMeeting) {
  let state = from;
  const effects: (readonly MeetingEffect[])[] = [];
  for (const m of messages) {
    const step = receive(state, m);
    state = step.state;
    effects.push(step.effects);
  }
  return { state, effects };
}
const said = (effects: readonly MeetingEffect[]) => effects.flatMap((e) => (e.do === 'announce' ? [e.said] : []));
const names = (s: MeetingState) => [...s.participants.values()].map((p) => p.name);

t.test(
  'the welcome: herself and everyone, tiles and chat, media with the others, her state told, a welcome said',
  async (t) => {
    const { state, effects } = run([welcome()]);
    t.same(names(state), ['Ada', 'Bea', 'Cy'], 'herself first, then in the order the server lists');
    t.same([state.self, state.roomName, state.welcomes], [ada, 'Maths', 1]);
    const step = effects[0]!;
    t.notOk(
      step.some((e) => e.do === 'forget'),
      'a first welcome has nothing to forget',
    );
    t.same(
      step.filter((e) => e.do === 'tile').map((e) => (e.do === 'tile' ? e.participant.name : '')),
      ['Ada', 'Bea', 'Cy'],
    );
    t.equal(step.filter((e) => e.do === 'chat').length, 1);
    t.same(
      step.find((e) => e.do === 'media'),
      { do: 'media', media: 'mesh', self: 'p1', peers: ['p2', 'p3'], audio: true, video: true },
    );
    t.same(step.map((e) => e.do).slice(-2), ['publish', 'announce']);
    t.same(said(step), [{ key: 'welcome' }]);
  },
);

t.test('mute on start: she arrives muted, and the server is told so', async (t) => {
  const { state, effects } = run([welcome({ mute_on_start: true })]);
  t.same([state.audio, state.video], [false, true]);
  t.ok(effects[0]!.some((e) => e.do === 'publish'));
});

t.test(
  'a second welcome is the same meeting after a lost connection: the old tiles go, her media state stays',
  async (t) => {
    const first = run([welcome()]).state;
    const muted = toggleVideo(toggleAudio(first).state).state;
    const again = receive(shareScreen(muted, true).state, welcome({ participants: [cy], media: 'janus' }));
    t.same(
      again.effects[0],
      { do: 'forget', tiles: ['p1', 'p2', 'p3'] },
      'first: what the previous connection built goes',
    );
    t.same(names(again.state), ['Ada', 'Cy'], 'who is there now, not who was');
    t.same(
      [again.state.audio, again.state.video, again.state.screen],
      [false, false, true],
      'her buttons as she left them',
    );
    const media = again.effects.find((e) => e.do === 'media');
    t.same(
      media,
      { do: 'media', media: 'janus', self: 'p1', peers: ['p3'], audio: true, video: true },
      'media renegotiated with whoever is there',
    );
    t.equal(again.state.welcomes, 2);
  },
);

t.test(
  'joins and leaves are said once: a repeated join is not news, a leave of someone unknown is silent',
  async (t) => {
    const start = run([welcome()]).state;
    const dan = person('p4', 'Dan');
    const { state, effects } = run(
      [
        { type: 'participant_joined', participant: dan },
        { type: 'participant_joined', participant: dan },
        { type: 'participant_left', participant_id: 'p4' },
        { type: 'participant_left', participant_id: 'p4' },
      ],
      start,
    );
    t.same(said(effects[0]!), [{ key: 'joined', name: 'Dan' }]);
    t.same(said(effects[1]!), [], 'the same arrival again');
    t.same(said(effects[2]!), [{ key: 'left', name: 'Dan' }]);
    t.ok(
      effects[2]!.some((e) => e.do === 'untile' && e.participant_id === 'p4'),
      'her tile and media peer go',
    );
    t.same(said(effects[3]!), [], 'already gone');
    t.same(names(state), ['Ada', 'Bea', 'Cy']);
  },
);

t.test('a state message updates a participant in place; a rename is said, her own as hers', async (t) => {
  const start = run([welcome()]).state;
  const { state, effects } = run(
    [
      { type: 'state', participant: { ...bea, audio: false, screen: true } },
      { type: 'state', participant: { ...bea, name: 'Beatrice' } },
      { type: 'state', participant: { ...ada, name: 'Ada L.' } },
    ],
    start,
  );
  t.same(said(effects[0]!), [], 'a media change is not announced');
  t.ok(anyoneSharing(run([{ type: 'state', participant: { ...bea, screen: true } }], start).state), 'a share is seen');
  t.same(said(effects[1]!), [{ key: 'renamed', before: 'Bea', name: 'Beatrice' }]);
  t.same(said(effects[2]!), [{ key: 'yourNameNow', before: 'Ada', name: 'Ada L.' }]);
  t.ok(
    effects[2]!.some((e) => e.do === 'renamed'),
    'her rename form may close',
  );
  t.notOk(
    effects[1]!.some((e) => e.do === 'renamed'),
    "someone else's rename closes nothing of hers",
  );
  t.same(names(state), ['Ada L.', 'Beatrice', 'Cy'], 'in place: the order of arrival kept');
  t.equal(state.self?.name, 'Ada L.');
});

t.test('locks switch off what she may no longer send, and tell the server; a moderator is not bound', async (t) => {
  const start = run([welcome()]).state;
  const locked = receive(start, { type: 'locks', locks: { mic: true, cam: false, cams_moderators_only: true } });
  t.same(
    [locked.state.audio, locked.state.video, mayAudio(locked.state), mayVideo(locked.state)],
    [false, false, false, false],
  );
  t.same(
    locked.effects.map((e) => e.do),
    ['publish', 'announce'],
  );
  const promoted = receive(locked.state, { type: 'role', participant_id: 'p1', role: 'moderator' });
  t.ok(isModerator(promoted.state));
  t.same([mayAudio(promoted.state), mayVideo(promoted.state)], [true, true], 'locks no longer bind her');
  t.same(said(promoted.effects), [{ key: 'nowModerator' }]);
  t.equal(promoted.state.participants.get('p1')?.role, 'moderator', 'her entry in the list too');
  const demoted = receive(toggleAudio(promoted.state).state, {
    type: 'role',
    participant_id: 'p1',
    role: 'participant',
  });
  t.equal(demoted.state.audio, false, 'bound again: her microphone goes off');
  t.ok(demoted.effects.some((e) => e.do === 'publish'));
  const unlocked = receive(locked.state, { type: 'locks', locks: open });
  t.same([unlocked.state.audio, unlocked.state.video], [false, false], 'an unlock turns nothing on by itself');
});

t.test("someone else's role changes her tile only", async (t) => {
  const start = run([welcome()]).state;
  const step = receive(start, { type: 'role', participant_id: 'p2', role: 'moderator' });
  t.equal(step.state.participants.get('p2')?.role, 'moderator');
  t.same(said(step.effects), []);
  t.notOk(isModerator(step.state));
  t.same(receive(start, { type: 'role', participant_id: 'nobody', role: 'moderator' }).effects, [], 'unknown: nothing');
});

t.test('a removal: hers ends the meeting for her; someone else is said, and her later leave is not', async (t) => {
  const start = run([welcome()]).state;
  t.same(receive(start, { type: 'removed', participant_id: 'p1', by: 'p3' }).effects, [
    { do: 'end', reason: 'removed' },
  ]);
  const { state, effects } = run(
    [
      { type: 'removed', participant_id: 'p2', by: 'p3' },
      { type: 'participant_left', participant_id: 'p2' },
    ],
    start,
  );
  t.same(said(effects[0]!), [{ key: 'removed', name: 'Bea' }]);
  t.same(said(effects[1]!), [], 'not "left" a moment later');
  t.ok(
    effects[1]!.some((e) => e.do === 'untile'),
    'her tile still goes',
  );
  t.same(names(state), ['Ada', 'Cy']);
  t.same(receive(state, { type: 'removed', participant_id: 'p9', by: null }).effects, [], 'unknown: nothing said');
  t.same(receive(start, { type: 'ended' }).effects, [{ do: 'end', reason: 'ended' }]);
});

t.test('the subject, the sub-groups, and what passes through to the view', async (t) => {
  const start = run([welcome()]).state;
  const set = receive(start, { type: 'subject', subject: 'Algebra' });
  t.same([set.state.subject, said(set.effects)], ['Algebra', [{ key: 'subjectIs', subject: 'Algebra' }]]);
  t.same(said(receive(set.state, { type: 'subject', subject: '' }).effects), [{ key: 'subjectRemoved' }]);
  const g1 = { room_id: 'g1', number: 1, name: 'Foxes' };
  t.same(receive(start, { type: 'subgroups', subgroups: ['g1'], groups: [g1], ends_at: null }).state.subgroups, ['g1']);
  const changes: ServerMessage = { type: 'waiting_changes', seq: 2, added: [], updated: [], removed: [] };
  t.same(
    receive(start, changes).effects,
    [{ do: 'waiting', message: changes }],
    'the Waiting section takes its messages',
  );
  t.same(receive(start, { type: 'move', room_id: 'g1' }).effects, [{ do: 'move', room_id: 'g1' }]);
});

t.test('errors: a refused name goes to the rename form, a rate limit too, anything else is only said', async (t) => {
  const start = run([welcome()]).state;
  const named = receive(start, { type: 'error', code: 'invalid_field', message: 'name: too long' });
  t.same(named.effects, [
    { do: 'renameRefused', why: 'name' },
    { do: 'announce', said: { key: 'liveError', code: 'invalid_field' } },
  ]);
  t.same(receive(start, { type: 'error', code: 'rate_limited', message: 'slow down' }).effects[0], {
    do: 'renameRefused',
    why: 'rate_limited',
  });
  const other = receive(start, { type: 'error', code: 'invalid_field', message: 'subject: too long' });
  t.same(
    other.effects.map((e) => e.do),
    ['announce'],
  );
});

t.test('her own buttons: each toggle tells the server and says what it did', async (t) => {
  const start = run([welcome()]).state;
  const muted = toggleAudio(start);
  t.same(
    [muted.state.audio, muted.effects],
    [false, [{ do: 'publish' }, { do: 'announce', said: { key: 'micMuted' } }]],
  );
  t.same(said(toggleAudio(muted.state).effects), [{ key: 'micOn' }]);
  const dark = toggleVideo(start);
  t.same([dark.state.video, said(dark.effects)], [false, [{ key: 'cameraOff' }]]);
  const sharing = shareScreen(start, true);
  t.same([sharing.state.screen, said(sharing.effects)], [true, [{ key: 'sharing' }]]);
  t.same(said(shareScreen(sharing.state, false).effects), [{ key: 'shareStopped' }]);
});

// Issue 31 point 14: the groups' names, their timer and the message to all groups, as page state.
t.test('the groups, their timer and a message to all groups', async (t) => {
  const groups = [
    { room_id: 'r-g1', number: 1, name: 'Foxes' },
    { room_id: 'r-g2', number: 2, name: '' },
  ];
  const inGroup = run([welcome({ room_id: 'r-g2', groups, groups_end_at: '2026-11-27T15:00:00.000Z' })]).state;
  t.same(groupOf(inGroup, 'r-g2'), groups[1], 'she knows which group she is in');
  t.equal(groupOf(inGroup, 'r'), null, 'the main room is no group');
  t.equal(inGroup.groupsEndAt, '2026-11-27T15:00:00.000Z', 'the timer from the welcome');
  const later = '2026-11-27T15:30:00.000Z';
  const set = receive(inGroup, { type: 'subgroups', subgroups: ['r-g1', 'r-g2'], groups, ends_at: later });
  t.same(said(set.effects), [{ key: 'groupsEndAt', endsAt: later }], 'a new end is said');
  const same = receive(set.state, { type: 'subgroups', subgroups: ['r-g1', 'r-g2'], groups, ends_at: later });
  t.same(said(same.effects), [], 'the same end again is not');
  const off = receive(set.state, { type: 'subgroups', subgroups: ['r-g1', 'r-g2'], groups, ends_at: null });
  t.equal(off.state.groupsEndAt, null);
  const told = receive(off.state, { type: 'group_message', text: '<b>Five</b> minutes', from: 'Ms Keller' });
  t.same(told.state.groupMessage, { text: '<b>Five</b> minutes', from: 'Ms Keller' });
  t.same(said(told.effects), [{ key: 'groupMessage', name: 'Ms Keller', text: '<b>Five</b> minutes' }], 'and said');
  t.equal(hideGroupMessage(told.state).state.groupMessage, null, 'until she hides it');
  // The server tells the current message again after a reconnect's welcome: shown, not said twice.
  const replayed = receive(run([welcome({ room_id: 'r-g2', groups })], told.state).state, {
    type: 'group_message',
    text: '<b>Five</b> minutes',
    from: 'Ms Keller',
  });
  t.same(replayed.state.groupMessage, told.state.groupMessage, 'still shown');
  t.same(said(replayed.effects), [], 'not said again');
});
