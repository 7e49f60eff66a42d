import type { RaisedHand } from '../protocol/live.js';
import type { MeetingActions } from './meeting-hooks.js';

/**
 * The everyday controls of a lesson (issue 31 point 10) through external_api.js, with the names
 * and payloads of the embedded client's API (and issue 33 point 3's `toggleChat`, `toggleParticipantsPane`, `toggleTileView`,
 * `setTileView` and `muteEveryone`): the command `toggleRaiseHand` and the event
 * `raiseHandUpdated {id, handRaised}` (0 when down, else when it went up, in ms); the moderator's
 * `endConference` (every page then tells its parent `videoConferenceLeft` and `readyToClose`)
 * and `muteRemoteParticipant(id, 'audio')` (she is asked, as by the Mute button). Kept apart from
 * embed-bridge.ts so the mapping is tested in Node (test/unit/web/embed-classroom.test.ts).
 */

/** These commands wait for the meeting to be on screen, like the bridge's own. */
export const classroomCommandNames = [
  'toggleRaiseHand',
  'endConference',
  'muteRemoteParticipant',
  'muteEveryone',
  'toggleChat',
  'toggleParticipantsPane',
  'toggleTileView',
  'setTileView',
] as const;

/** What the bridge knows besides the actions: who else has the microphone on, and how to tell the embedding page. */
export interface CommandContext {
  /** Ids of the others present whose microphone is on. */
  readonly unmuted?: readonly string[];
  readonly tell?: (name: string, data: object) => void;
}

export interface HandUpdate {
  readonly id: string;
  readonly handRaised: number;
}

/** The raised hands as the page last told its parent: participant id -> when it went up (ms). */
export type HandsTold = ReadonlyMap<string, number>;

/** The room's hands as the server now tells them, and the `raiseHandUpdated` events this makes (in the server's order). */
export function handUpdates(told: HandsTold, hands: readonly RaisedHand[]): { told: HandsTold; events: HandUpdate[] } {
  const next = new Map<string, number>();
  for (const h of hands) {
    const at = Date.parse(h.raised_at);
    next.set(h.participant_id, Number.isFinite(at) && at > 0 ? at : 1);
  }
  const events: HandUpdate[] = [];
  for (const [id, at] of next) if (told.get(id) !== at) events.push({ id, handRaised: at });
  for (const id of told.keys()) if (!next.has(id)) events.push({ id, handRaised: 0 });
  return { told: next, events };
}

/**
 * One of classroomCommandNames, carried out as the person's own gesture (the server decides
 * again); false for any other name. A moderator's command from anyone else sends nothing and
 * says why where the embedding developer looks.
 */
export function classroomCommand(
  name: string,
  args: readonly unknown[],
  actions: MeetingActions,
  selfId: string,
  context: CommandContext = {},
): boolean {
  switch (name) {
    case 'toggleChat':
      actions.toggleChat();
      return true;
    case 'toggleParticipantsPane':
      // toggleParticipantsPane(enabled): People open or closed; without a boolean, the other way.
      actions.toggleParticipantsPane(typeof args[0] === 'boolean' ? args[0] : null);
      return true;
    case 'toggleTileView':
    case 'setTileView': {
      // setTileView(enabled): the grid on or off; toggleTileView: the other layout.
      const tiles = name === 'toggleTileView' ? null : args[0] !== false;
      context.tell?.('tileViewChanged', { enabled: actions.setTileView(tiles) });
      return true;
    }
    case 'muteEveryone': {
      // Upstream's muteEveryone(mediaType = 'audio'): everyone else's microphone, the moderator's own excepted.
      const media = args[0] === undefined ? 'audio' : args[0];
      if (media !== 'audio')
        console.warn('muteEveryone: only microphones (audio) can be muted here; nothing was sent.');
      else if (!actions.isModerator())
        console.warn('muteEveryone: only a moderator can mute everyone; nothing was sent.');
      else for (const id of context.unmuted ?? []) if (id !== selfId) actions.mute(id);
      return true;
    }
    case 'toggleRaiseHand':
      actions.toggleHand();
      return true;
    case 'endConference':
      if (!actions.isModerator())
        console.warn('endConference: only a moderator can end the meeting for everyone; nothing was sent.');
      else actions.endMeeting();
      return true;
    case 'muteRemoteParticipant': {
      const id = typeof args[0] === 'string' ? args[0].trim() : '';
      const media = args[1] === undefined ? 'audio' : args[1];
      if (id === '') console.warn('muteRemoteParticipant: pass the participant id to mute; nothing was sent.');
      else if (media !== 'audio')
        console.warn('muteRemoteParticipant: only the microphone (audio) can be muted here; nothing was sent.');
      else if (!actions.isModerator())
        console.warn('muteRemoteParticipant: only a moderator can mute someone; nothing was sent.');
      else if (id === selfId)
        console.warn('muteRemoteParticipant: to mute herself, a moderator uses toggleAudio; nothing was sent.');
      else actions.mute(id);
      return true;
    }
    default:
      return false;
  }
}
