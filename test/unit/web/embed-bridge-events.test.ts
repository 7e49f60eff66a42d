// Issue 33 points 2 and 5 through the page's bridge itself, on a stand-in window: a late
// joiner's embedding page hears participantJoined for each person already present, before its
// videoConferenceJoined; a lost connection is told as a flat errorOccurred.
import t from 'tap';
import type { ParticipantView, ServerMessage } from '../../../src/protocol/live.js';

const posted: { kind?: string; name?: string; data?: Record<string, unknown> }[] = [];
(globalThis as Record<string, unknown>).window = {
  addEventListener() {},
  parent: { postMessage: (message: (typeof posted)[number]) => posted.push(message) },
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
