// Issue 33 points 2 and 5 through the page's bridge itself, on a stand-in window: a late
// joiner's embedding page hears participantJoined for each person already present, before its
// videoConferenceJoined; a lost connection is told as a flat errorOccurred. Point 3: the command
// toggleParticipantsPane opens/closes People, and the panel is told as chatUpdated and participantsPaneToggled.
import t from 'tap';
import type { ParticipantView, ServerMessage } from '../../../src/protocol/live.js';
import type { MeetingActions } from '../../../src/web/meeting-hooks.js';

const posted: { kind?: string; name?: string; data?: Record<string, unknown> }[] = [];
const parent = { postMessage: (message: (typeof posted)[number]) => posted.push(message) };
let fromParent: ((event: object) => void) | null = null;
(globalThis as Record<string, unknown>).window = {
  addEventListener: (_name: string, listener: (event: object) => void) => (fromParent = listener),
  parent,
};
const { EmbedBridge } = await import('../../../src/web/embed-bridge.js');

const person = (id: string, name: string): ParticipantView => ({
  participant_id: id,
  name,
  role: 'participant',
  audio: true,
  video: true,
  screen: false,
});
const events = () => posted.filter((m) => m.kind === 'event');

t.test('a late joiner hears of everyone present, then of her own arrival', async (t) => {
  posted.length = 0;
  const bridge = new EmbedBridge('https://app.example.org', 'room-1', '#embed.roomName=%22math-101%22', {} as never);
  const welcome = {
    type: 'welcome',
    self: person('p-cat', 'Cat'),
    participants: [person('p-ann', 'Ann'), person('p-ben', 'Ben')],
    subject: '',
  } as unknown as ServerMessage;
  bridge.hooks.message(welcome);
  t.same(
    events().map((e) => [e.name, e.data?.id]),
    [
      ['participantJoined', 'p-ann'],
      ['participantJoined', 'p-ben'],
      ['videoConferenceJoined', 'p-cat'],
    ],
  );
  t.match(events()[0]!.data, { id: 'p-ann', displayName: 'Ann', formattedDisplayName: 'Ann' });
  // Someone arriving later is told once, as before.
  bridge.hooks.message({ type: 'participant_joined', participant: person('p-dan', 'Dan') });
  t.same(events().at(-1), {
    videomeet: 'v1',
    kind: 'event',
    name: 'participantJoined',
    data: { id: 'p-dan', displayName: 'Dan', formattedDisplayName: 'Dan' },
  });
});

t.test('a lost connection: errorOccurred with its fields flat', async (t) => {
  posted.length = 0;
  const bridge = new EmbedBridge('https://app.example.org', 'room-1', '', {} as never);
  bridge.hooks.leaving('lost');
  const error = events().find((e) => e.name === 'errorOccurred');
  t.same(error?.data, {
    name: 'conference.connectionError',
    message: 'The connection to the meeting was lost.',
    type: 'CONNECTION',
    isFatal: true,
  });
});

t.test('toggleParticipantsPane, participantsPaneToggled and chatUpdated', async (t) => {
  posted.length = 0;
  const bridge = new EmbedBridge('https://app.example.org', 'room-1', '', {} as never);
  const asked: (boolean | null)[] = [];
  const actions = {
    toggleParticipantsPane: (open: boolean | null) => asked.push(open),
    local: () => ({ audio: true, video: true, screen: false }),
  } as unknown as MeetingActions;
  bridge.attach('room-1', actions);
  // The panel as the page opens it before the meeting is joined: nothing is told yet.
  bridge.hooks.panel({ open: 'people', unread: 0 });
  t.same(events(), []);
  bridge.hooks.message({
    type: 'welcome',
    self: person('p-cat', 'Cat'),
    participants: [],
    subject: '',
  } as unknown as ServerMessage);
  const command = (args: unknown[]) =>
    fromParent!({
      source: parent,
      origin: 'https://app.example.org',
      data: { videomeet: 'v1', kind: 'command', name: 'toggleParticipantsPane', args },
    });
  command([false]);
  command([true]);
  command([]);
  t.same(asked, [false, true, null], 'toggleParticipantsPane(enabled) reaches the page: closed, open, toggled');

  posted.length = 0;
  bridge.hooks.panel({ open: null, unread: 0 });
  bridge.hooks.panel({ open: 'chat', unread: 0 });
  bridge.hooks.panel({ open: 'chat', unread: 0 });
  bridge.hooks.panel({ open: 'people', unread: 0 });
  bridge.hooks.panel({ open: 'people', unread: 2 });
  t.same(
    events().map((e) => [e.name, e.data]),
    [
      ['participantsPaneToggled', { open: false }],
      ['chatUpdated', { isOpen: true, unreadCount: 0 }],
      ['chatUpdated', { isOpen: false, unreadCount: 0 }],
      ['participantsPaneToggled', { open: true }],
      ['chatUpdated', { isOpen: false, unreadCount: 2 }],
    ],
    'as the embedded client: each change once, in its payload',
  );
});
