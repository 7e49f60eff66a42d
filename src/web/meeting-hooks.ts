import type { ServerMessage } from '../protocol/live.js';

// Apart from embed-bridge.ts so that meeting.ts and removal.ts depend on these shapes only, not on
// the bridge: it stays a listener the page can do without (no embed=1, no bridge).

/** What the meeting view lets the bridge do: its own buttons and its chat. */
export interface MeetingActions {
  readonly toggleAudio: () => void;
  readonly toggleVideo: () => void;
  readonly toggleScreen: () => void;
  readonly leave: () => void;
  readonly sendChat: (text: string) => void;
  /** Her own name during the meeting; false when the page refused it before sending (empty, too long). */
  readonly rename: (name: string) => boolean;
  /** Moderators: the meeting's subject (the server refuses anyone else). */
  readonly setSubject: (text: string) => void;
  /** Moderators: the waiting room on or off for later arrivals. */
  readonly setWaitingRoom: (enabled: boolean) => void;
  /** Moderators: someone else out of the meeting (the server refuses anyone else). */
  readonly remove: (participantId: string) => void;
  /** Her own hand up, or down again (the Raise hand button). */
  readonly toggleHand: () => void;
  /** Moderators: the meeting ends for everyone (no dialog: the embedding page asked already). */
  readonly endMeeting: () => void;
  /** Moderators: someone else is asked to turn her microphone off. */
  readonly mute: (participantId: string) => void;
  /** The chat panel open, or closed when it shows (the toolbar's Chat button). */
  readonly toggleChat: () => void;
  /** People open (true), closed if it shows (false), or toggled (null), as the toolbar's People button. */
  readonly toggleParticipantsPane: (open: boolean | null) => void;
  /** The grid on (true), off (false: speaker view) or toggled (null), as her layout buttons; whether it shows now. */
  readonly setTileView: (tiles: boolean | null) => boolean;
  readonly local: () => LocalState;
  readonly session: () => string;
  readonly isModerator: () => boolean;
}

/** The side panel as the page shows it: which tab is open (null: closed), and the chat's unread count. */
export interface PanelSeen {
  readonly open: 'people' | 'chat' | 'moderation' | null;
  readonly unread: number;
}

export interface LocalState {
  readonly audio: boolean;
  readonly video: boolean;
  readonly screen: boolean;
}

/** `removed`: a moderator removed her (the page offers to ask again: no readyToClose). */
export type LeaveReason = 'hangup' | 'ended' | 'lost' | 'removed';

/** What meeting.ts tells whoever listens (only the bridge, today). */
export interface MeetingHooks {
  /** Every message of the live connection, after the page has handled it. */
  readonly message: (message: ServerMessage) => void;
  /** The person's own microphone/camera/screen, whenever the page publishes it. */
  readonly localState: (state: LocalState) => void;
  readonly leaving: (reason: LeaveReason) => void;
  /** The side panel opened, closed, changed tab, or the chat's unread count changed. */
  readonly panel: (seen: PanelSeen) => void;
}
