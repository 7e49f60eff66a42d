import type { ParticipantView } from '../protocol/live.js';
import type { LocalState } from './meeting-hooks.js';

/** What the bridge knows when the embedding page asks: a snapshot, so the answers stay pure. */
export interface EmbedSnapshot {
  readonly participants: ReadonlyMap<string, ParticipantView>;
  readonly selfId: string;
  readonly joined: boolean;
  readonly roomId: string;
  readonly homeRoomId: string;
  readonly local: LocalState;
  /** People shows in the side panel. */
  readonly peopleOpen?: boolean;
}

/**
 * The answer to one of the embedding page's requests, in upstream's shapes. Until she has joined
 * (and once she left) there is no meeting to tell of, so it has nobody in it.
 */
export function answerRequest(
  name: string,
  args: unknown[],
  state: EmbedSnapshot,
): { result: unknown } | { error: string } {
  const people = [...state.participants.values()];
  const self = state.participants.get(state.selfId);
  const inMeeting = state.joined ? people : [];
  switch (name) {
    case 'getNumberOfParticipants':
      return { result: inMeeting.length };
    case 'getParticipantsInfo':
      return {
        result: inMeeting.map((p) => ({
          participantId: p.participant_id,
          displayName: p.name,
          formattedDisplayName: p.name,
        })),
      };
    case 'getRoomsInfo': {
      const ordered = self && state.joined ? [self, ...inMeeting.filter((p) => p !== self)] : [];
      const participants = ordered.map((p) => ({
        jid: p.participant_id,
        role: p.role,
        displayName: p.name,
        avatarUrl: p.avatar_url ?? '',
        id: p.participant_id,
      }));
      return {
        result: {
          rooms: state.joined
            ? [{ isMainRoom: state.roomId === state.homeRoomId, id: state.roomId, jid: state.selfId, participants }]
            : [],
        },
      };
    }
    case 'isAudioMuted':
      return { result: !state.local.audio };
    case 'isVideoMuted':
      return { result: !state.local.video };
    case 'isSharingScreen':
      return { result: state.local.screen };
    case 'getContentSharingParticipants':
      return { result: { sharingParticipantIds: inMeeting.filter((p) => p.screen).map((p) => p.participant_id) } };
    case 'isParticipantsPaneOpen':
      return { result: state.joined && state.peopleOpen === true };
    case 'getDisplayName':
      return { result: typeof args[0] === 'string' ? state.participants.get(args[0])?.name : undefined };
    default:
      return { error: `${name} is not something this meeting can answer.` };
  }
}
