// Issue 33 points 2, 3 and 5 on the page's side of external_api.js: a late joiner's embedding
// page hears of everyone already present before its own videoConferenceJoined; errorOccurred is
// flat; devices are answered in the embedded client's shapes; toggleChat, toggleTileView,
// setTileView and muteEveryone are the person's own gestures (the moderator's for a moderator).
import t from 'tap';
import type { ParticipantView } from '../../../src/protocol/live.js';
import { answerRequest } from '../../../src/web/embed-answers.js';
import { classroomCommand } from '../../../src/web/embed-classroom.js';
import { availableDevices, currentDevices, deviceNamed } from '../../../src/web/embed-devices.js';
import { errorOccurred, joinedEvents } from '../../../src/web/embed-events.js';
import type { MeetingActions } from '../../../src/web/meeting-hooks.js';

const person = (id: string, name: string, more: Partial<ParticipantView> = {}): ParticipantView => ({
  participant_id: id,
  name,
  role: 'participant',
  audio: true,
  video: true,
  screen: false,
  ...more,
});

t.test('a late joiner hears participantJoined for each person present, then videoConferenceJoined', async (t) => {
  const self = person('p-cat', 'Cat');
  const events = joinedEvents(self, [person('p-ann', 'Ann'), person('p-ben', 'Ben')], {
    roomName: 'math-101',
    breakoutRoom: false,
  });
  t.same(
    events.map((e) => e.name),
    ['participantJoined', 'participantJoined', 'videoConferenceJoined'],
    'the people first, so a count built from events is whole when videoConferenceJoined is heard',
  );
  t.same(events[0]!.data, { id: 'p-ann', displayName: 'Ann', formattedDisplayName: 'Ann' }, "the client's shape");
  t.same(events[1]!.data, { id: 'p-ben', displayName: 'Ben', formattedDisplayName: 'Ben' });
  t.match(events[2]!.data, { roomName: 'math-101', id: 'p-cat', displayName: 'Cat', breakoutRoom: false });
  t.same(
    joinedEvents(self, [self], { roomName: 'r', breakoutRoom: true }).map((e) => e.name),
    ['videoConferenceJoined'],
    'alone (or listed herself): no participantJoined for her own arrival',
  );
});

t.test('errorOccurred is flat', async (t) => {
  t.same(errorOccurred('conference.connectionError', 'The connection to the meeting was lost.', 'CONNECTION'), {
    name: 'errorOccurred',
    data: {
      name: 'conference.connectionError',
      message: 'The connection to the meeting was lost.',
      type: 'CONNECTION',
      isFatal: true,
    },
  });
});

const list = [
  { deviceId: 'mic-1', groupId: 'g1', kind: 'audioinput', label: 'Built-in microphone' },
  { deviceId: 'mic-2', groupId: 'g2', kind: 'audioinput', label: 'Headset' },
  { deviceId: 'spk-1', groupId: 'g1', kind: 'audiooutput', label: 'Speakers' },
  { deviceId: 'cam-1', groupId: 'g3', kind: 'videoinput', label: 'Camera' },
];

t.test('devices in the embedded client shapes', async (t) => {
  const available = availableDevices(list);
  t.same(
    available.audioInput.map((d) => d.deviceId),
    ['mic-1', 'mic-2'],
  );
  t.same(available.audioOutput, [list[2]]);
  t.same(available.videoInput, [list[3]]);
  t.same(
    currentDevices(list, { microphone: 'mic-2', speaker: '', camera: 'gone' }),
    {
      audioInput: list[1],
      audioOutput: list[2],
      videoInput: list[3],
    },
    'her choice where the browser has it, else the first (the default)',
  );
  t.equal(deviceNamed(list, 'audioinput', 'Headset', undefined)?.deviceId, 'mic-2', 'by label');
  t.equal(deviceNamed(list, 'audioinput', 'Headset', 'mic-1')?.deviceId, 'mic-1', 'the id first');
  t.equal(deviceNamed(list, 'videoinput', 'Headset', 'mic-2'), null, 'only a device of that kind');
});

t.test('getContentSharingParticipants: who shares a screen', async (t) => {
  const participants = new Map([
    ['p-ann', person('p-ann', 'Ann', { screen: true })],
    ['p-ben', person('p-ben', 'Ben')],
  ]);
  const state = {
    participants,
    selfId: 'p-ben',
    joined: true,
    roomId: 'r',
    homeRoomId: 'r',
    local: { audio: true, video: true, screen: false },
  };
  t.same(answerRequest('getContentSharingParticipants', [], state), { result: { sharingParticipantIds: ['p-ann'] } });
});

function fakeActions(moderator: boolean) {
  const done: string[] = [];
  let grid = true;
  const actions = {
    toggleChat: () => done.push('chat'),
    setTileView: (tiles: boolean | null) => {
      grid = tiles ?? !grid;
      done.push(`tiles:${grid}`);
      return grid;
    },
    mute: (id: string) => done.push(`mute:${id}`),
    isModerator: () => moderator,
  } as unknown as MeetingActions;
  return { actions, done };
}

t.test('toggleChat, toggleTileView, setTileView and muteEveryone', async (t) => {
  const { actions, done } = fakeActions(true);
  const told: [string, object][] = [];
  const context = {
    unmuted: ['p-ann', 'p-me', 'p-ben'],
    tell: (name: string, data: object) => told.push([name, data]),
  };
  for (const [name, args] of [
    ['toggleChat', []],
    ['toggleTileView', []],
    ['setTileView', [true]],
    ['setTileView', [false]],
    ['muteEveryone', []],
  ] as const)
    t.ok(classroomCommand(name, args, actions, 'p-me', context), `${name} is carried out`);
  t.same(done, ['chat', 'tiles:false', 'tiles:true', 'tiles:false', 'mute:p-ann', 'mute:p-ben'], 'not herself');
  t.same(told, [
    ['tileViewChanged', { enabled: false }],
    ['tileViewChanged', { enabled: true }],
    ['tileViewChanged', { enabled: false }],
  ]);
  const other = fakeActions(false);
  const warn = console.warn;
  const warnings: string[] = [];
  console.warn = (text: string) => warnings.push(text);
  try {
    classroomCommand('muteEveryone', [], other.actions, 'p-me', context);
    classroomCommand('muteEveryone', ['video'], actions, 'p-me', context);
  } finally {
    console.warn = warn;
  }
  t.same(other.done, [], 'a participant mutes nobody');
  t.equal(warnings.length, 2, 'and is told why; so is a moderator asking for video');
});

t.test("avatarURL (issue 33 point 8): videoConferenceJoined and getRoomsInfo carry the person's picture", async (t) => {
  const pic = 'https://lms.example.org/cat.png';
  const cat = person('p-cat', 'Cat', { avatar_url: pic });
  const joined = joinedEvents(cat, [], { roomName: 'r', breakoutRoom: false }).at(-1)!;
  t.match(joined.data, { avatarURL: pic });
  t.match(joinedEvents(person('p-dan', 'Dan'), [], { roomName: 'r', breakoutRoom: false }).at(-1)!.data, {
    avatarURL: '',
  });
  const answer = answerRequest('getRoomsInfo', [], {
    participants: new Map([
      ['p-cat', cat],
      ['p-ann', person('p-ann', 'Ann')],
    ]),
    selfId: 'p-cat',
    joined: true,
    roomId: 'room-1',
    homeRoomId: 'room-1',
    local: { audio: true, video: true, screen: false },
  }) as { result: { rooms: { participants: { id: string; avatarUrl: string }[] }[] } };
  t.same(
    answer.result.rooms[0]!.participants.map((p) => [p.id, p.avatarUrl]),
    [
      ['p-cat', pic],
      ['p-ann', ''],
    ],
  );
});

t.test('isParticipantsPaneOpen answers whether People shows (once she joined)', async (t) => {
  const state = {
    participants: new Map<string, ParticipantView>(),
    selfId: 'p-cat',
    joined: true,
    roomId: 'room-1',
    homeRoomId: 'room-1',
    local: { audio: true, video: true, screen: false },
  };
  t.same(answerRequest('isParticipantsPaneOpen', [], { ...state, peopleOpen: true }), { result: true });
  t.same(answerRequest('isParticipantsPaneOpen', [], { ...state, peopleOpen: false }), { result: false });
  t.same(answerRequest('isParticipantsPaneOpen', [], { ...state, joined: false, peopleOpen: true }), { result: false });
});
