import type { ClientMessage } from '../../protocol/live.js';

/** The moderator's gestures decided here; those of the classroom (mute, lower_hand, end_meeting) check the role themselves. */
export type Moderation = Exclude<
  ClientMessage,
  {
    type:
      | 'signal'
      | 'state'
      | 'speaking'
      | 'view'
      | 'chat'
      | 'rename'
      | 'hand'
      | 'react'
      | 'mute'
      | 'lower_hand'
      | 'end_meeting';
  }
>;
