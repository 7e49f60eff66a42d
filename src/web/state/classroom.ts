/**
 * The everyday controls of a lesson as the page knows them (issue 31 point 10): the raised hands
 * in raising order and the reactions shown on the tiles. A reducer like meeting.ts: the live
 * socket's `hands` and `reaction` in, the next state and what to say out (named, never words),
 * so it runs and is tested in Node (test/unit/web/state/classroom.test.ts).
 */
import type { RaisedHand, Reaction } from '../../protocol/live.js';

export interface ClassroomState {
  /** Raised hands of people present, in raising order (the server's). */
  readonly hands: readonly RaisedHand[];
  /** The reaction each person's tile shows now, with a number that tells one showing from the next. */
  readonly reactions: ReadonlyMap<string, { readonly reaction: Reaction; readonly shown: number }>;
  /** Reactions shown so far (to number them). */
  readonly shown: number;
}

/** Who the page is and whom it knows: the meeting's state, as these steps need it. */
export interface Context {
  readonly self: string | undefined;
  readonly moderator: boolean;
  readonly names: ReadonlyMap<string, string>;
}

/** What the page says aloud, by name; the view finds the sentence in words.classroom. */
export type ClassroomSaid =
  | { readonly key: 'yourHandRaised' | 'yourHandLowered' }
  | { readonly key: 'handRaised' | 'handLowered'; readonly name: string }
  | { readonly key: 'reacted'; readonly name: string; readonly reaction: Reaction };

export interface ClassroomStep {
  readonly state: ClassroomState;
  readonly said: readonly ClassroomSaid[];
}

export const initialClassroom: ClassroomState = { hands: [], reactions: new Map(), shown: 0 };

/** Her hand's place in the order (1 for the first raised), or null when it is down. */
export function handPlace(state: ClassroomState, participantId: string | undefined): number | null {
  const index = state.hands.findIndex((h) => h.participant_id === participantId);
  return index < 0 ? null : index + 1;
}

/**
 * The room's hands as the server now tells them. She hears her own hand go up or down (a
 * moderator may lower it); a moderator hears every other hand go up or down; the others are
 * not told of each other's hands (the mark on the tile shows them).
 */
export function handsChanged(state: ClassroomState, hands: readonly RaisedHand[], ctx: Context): ClassroomStep {
  const known = hands.filter((h) => ctx.names.has(h.participant_id));
  const before = new Set(state.hands.map((h) => h.participant_id));
  const after = new Set(known.map((h) => h.participant_id));
  const said: ClassroomSaid[] = [];
  const changed = (id: string, up: boolean) => {
    if (id === ctx.self) said.push({ key: up ? 'yourHandRaised' : 'yourHandLowered' });
    else if (ctx.moderator) said.push({ key: up ? 'handRaised' : 'handLowered', name: ctx.names.get(id) ?? '' });
  };
  for (const h of known) if (!before.has(h.participant_id)) changed(h.participant_id, true);
  // Who left is not said to have lowered her hand: her leaving is said already.
  for (const id of before) if (!after.has(id) && ctx.names.has(id)) changed(id, false);
  return { state: { ...state, hands: known }, said };
}

/** Someone reacted: her tile shows it (until `reactionOver` with the same number), and it is said. */
export function reacted(state: ClassroomState, participantId: string, reaction: Reaction, ctx: Context): ClassroomStep {
  const name = ctx.names.get(participantId);
  if (name === undefined) return { state, said: [] };
  const shown = state.shown + 1;
  return {
    state: { ...state, shown, reactions: new Map(state.reactions).set(participantId, { reaction, shown }) },
    said: [{ key: 'reacted', name, reaction }],
  };
}

/** A reaction's time on the tile is over; a later one of the same person stays. */
export function reactionOver(state: ClassroomState, participantId: string, shown: number): ClassroomState {
  if (state.reactions.get(participantId)?.shown !== shown) return state;
  const reactions = new Map(state.reactions);
  reactions.delete(participantId);
  return { ...state, reactions };
}

/** Someone left: her hand and her reaction go (the server lowers the hand as well). */
export function personGone(state: ClassroomState, participantId: string): ClassroomState {
  if (!state.reactions.has(participantId) && handPlace(state, participantId) === null) return state;
  const reactions = new Map(state.reactions);
  reactions.delete(participantId);
  return { ...state, reactions, hands: state.hands.filter((h) => h.participant_id !== participantId) };
}
