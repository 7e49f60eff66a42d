import type { ParticipantView, ServerMessage } from '../../src/protocol/live.js';

type Welcome = Extract<ServerMessage, { type: 'welcome' }>;

/** A participant as the live socket describes her: microphone and camera on unless given. */
export const person = (
  id: string,
  name: string,
  role: ParticipantView['role'] = 'participant',
  media: Partial<Pick<ParticipantView, 'audio' | 'video' | 'screen'>> = {},
): ParticipantView => ({ participant_id: id, name, role, audio: true, video: true, screen: false, ...media });

/** A welcome to `self` in an open room (no locks, no chat, no sub-groups), with whatever `extra` changes. */
export function welcomeOf(self: ParticipantView, extra: Partial<Welcome> = {}): Welcome {
  return {
    type: 'welcome',
    self,
    room_id: 'r',
    room_name: 'Maths',
    participants: [],
    locks: { mic: false, cam: false, cams_moderators_only: false },
    chat: [],
    subgroups: [],
    groups: [],
    groups_end_at: null,
    subject: '',
    media: 'mesh',
    ...extra,
  };
}
