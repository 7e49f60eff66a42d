import type { ParticipantView } from '../protocol/live.js';
import type { PanelSeen } from './meeting-hooks.js';

/**
 * Payloads of the events the page tells its embedding page, in the embedded client's shapes,
 * kept apart from embed-bridge.ts so they are tested in Node (test/unit/web/embed-events.test.ts).
 */

export interface EmbedEvent {
  readonly name: string;
  readonly data: object;
}

/** `participantJoined` as the embedded client sends it: `{id, displayName, formattedDisplayName}`. */
export function participantJoined(p: ParticipantView): EmbedEvent {
  return {
    name: 'participantJoined',
    data: { id: p.participant_id, displayName: p.name, formattedDisplayName: p.name },
  };
}

/**
 * What joining tells the embedding page (issue 33 point 2): one `participantJoined` per person
 * already present (the embedded client tells a late joiner of each), then `videoConferenceJoined`.
 * The people come first, so a list or a count built from events is whole when the listeners of
 * `videoConferenceJoined` read it.
 */
export function joinedEvents(
  self: ParticipantView,
  present: readonly ParticipantView[],
  room: { readonly roomName: string; readonly breakoutRoom: boolean },
): EmbedEvent[] {
  return [
    ...present.filter((p) => p.participant_id !== self.participant_id).map(participantJoined),
    {
      name: 'videoConferenceJoined',
      data: {
        roomName: room.roomName,
        id: self.participant_id,
        displayName: self.name,
        formattedDisplayName: self.name,
        avatarURL: self.avatar_url ?? '',
        breakoutRoom: room.breakoutRoom,
      },
    },
  ];
}

/**
 * `errorOccurred` with its fields flat, as the embedded client sends them (issue 33 point 5):
 * `{name, message, type, isFatal}`, never nested under `error`.
 */
export function errorOccurred(name: string, message: string, type: 'CONNECTION' | 'CONFERENCE'): EmbedEvent {
  return { name: 'errorOccurred', data: { name, message, type, isFatal: true } };
}

/**
 * What a change of the side panel tells the embedding page, as the embedded client does:
 * `chatUpdated {isOpen, unreadCount}` when the chat opens or closes or its unread count changes,
 * and `participantsPaneToggled {open}` when People opens or closes.
 */
export function panelEvents(before: PanelSeen, now: PanelSeen): EmbedEvent[] {
  const events: EmbedEvent[] = [];
  const chat = (p: PanelSeen) => p.open === 'chat';
  const people = (p: PanelSeen) => p.open === 'people';
  if (chat(before) !== chat(now) || before.unread !== now.unread)
    events.push({ name: 'chatUpdated', data: { isOpen: chat(now), unreadCount: now.unread } });
  if (people(before) !== people(now)) events.push({ name: 'participantsPaneToggled', data: { open: people(now) } });
  return events;
}
