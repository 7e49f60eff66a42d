/**
 * "My rooms" (issue 32 point 3) as a reducer: the rooms API's answers and the organiser's gestures
 * in, what the page shows out (the list, the room form with its error, a delete being confirmed,
 * what to announce). No DOM, no words: messages are keys of the `myRooms` catalogue section.
 */
import type { Refusal } from './account-forms.js';

export type WaitingScope = 'off' | 'guests' | 'all';
export type WaitingMode = 'until_moderator' | 'approval';

/** A room as the rooms API answers it (the fields the page reads). */
export interface RoomAnswer {
  readonly room_id: string;
  readonly name: string;
  readonly waiting_room: WaitingScope;
  readonly waiting_room_mode: WaitingMode;
  readonly moderator_link_ttl_secs: number;
  readonly access_code_set: boolean;
  readonly mics_off_on_entry: boolean;
  readonly parent_room_id: string | null;
  readonly owner_account_id: string | null;
  readonly owner_email: string | null;
}

/** What the organiser typed and chose in the room form. */
export interface RoomDraft {
  readonly name: string;
  /** Create only: the room code she chose; empty for a readable one drawn by the service. */
  readonly roomId: string;
  readonly waitingRoom: WaitingScope;
  readonly mode: WaitingMode;
  /** Empty: none (create) or unchanged (edit). */
  readonly accessCode: string;
  /** Edit only: take the room's access code away. */
  readonly removeAccessCode: boolean;
  readonly micsOff: boolean;
  readonly ttlSecs: number;
  /** Edit, admin only: the email of the organiser the room belongs to; unchanged is not sent. */
  readonly ownerEmail: string;
}

export type MyRoomsMessage =
  | 'nameMissing'
  | 'nameTooLong'
  | 'codeInvalid'
  | 'codeTaken'
  | 'accessCodeLength'
  | 'ownerUnknown'
  | 'modeFixed'
  | 'scopeNotAllowed'
  | 'failed'
  | 'created'
  | 'saved'
  | 'deleted'
  | 'participantCopied'
  | 'moderatorCopied'
  | 'copyFailed'
  | 'listFailed';

export type DraftField = 'name' | 'roomId' | 'waitingRoom' | 'accessCode' | 'mode' | 'ownerEmail';

export interface MyRoomsState {
  readonly phase: 'loading' | 'ready' | 'failed';
  /** Top-level rooms by name (sub-groups are made and used inside a meeting). */
  readonly rooms: readonly RoomAnswer[];
  /** The room form: a new room, or the room being edited. */
  readonly editor: { readonly roomId: string | null; readonly sending: boolean } | null;
  readonly error: { readonly message: MyRoomsMessage; readonly field: DraftField | null } | null;
  /** The room whose deletion waits for a second "Delete". */
  readonly confirming: string | null;
  /** What the page says (announced once): a message and the room's name it is about. */
  readonly notice: { readonly message: MyRoomsMessage; readonly name: string } | null;
}

export const initialRooms: MyRoomsState = {
  phase: 'loading',
  rooms: [],
  editor: null,
  error: null,
  confirming: null,
  notice: null,
};

export type MyRoomsEvent =
  | { readonly type: 'listed'; readonly rooms: readonly RoomAnswer[] }
  | { readonly type: 'listFailed' }
  | { readonly type: 'create' }
  | { readonly type: 'edit'; readonly roomId: string }
  | { readonly type: 'closeEditor' }
  | { readonly type: 'submit'; readonly draft: RoomDraft }
  | { readonly type: 'saved'; readonly room: RoomAnswer }
  | { readonly type: 'refused'; readonly refusal: Refusal }
  | { readonly type: 'askDelete'; readonly roomId: string }
  | { readonly type: 'keep' }
  | { readonly type: 'deleted'; readonly roomId: string }
  | { readonly type: 'copied'; readonly roomId: string; readonly which: 'participant' | 'moderator' }
  | { readonly type: 'failed'; readonly roomId: string | null; readonly message: 'copyFailed' | 'failed' };

export const nameMax = 200;
const roomIdShape = /^[A-Za-z0-9._-]{1,64}$/;

const byName = (rooms: readonly RoomAnswer[]) =>
  rooms
    .filter((room) => room.parent_room_id === null)
    .sort((a, b) => a.name.localeCompare(b.name) || a.room_id.localeCompare(b.room_id));

const nameOf = (state: MyRoomsState, roomId: string | null) =>
  state.rooms.find((room) => room.room_id === roomId)?.name ?? '';

/** What the page can tell before sending: the same rules the service applies, said in the organiser's words. */
export function checkDraft(draft: RoomDraft, creating: boolean): MyRoomsState['error'] {
  const name = draft.name.trim();
  if (name === '') return { message: 'nameMissing', field: 'name' };
  if ([...draft.name].length > nameMax) return { message: 'nameTooLong', field: 'name' };
  if (creating && draft.roomId.trim() !== '' && !roomIdShape.test(draft.roomId.trim()))
    return { message: 'codeInvalid', field: 'roomId' };
  const code = [...draft.accessCode].length;
  if (code > 0 && (code < 4 || code > 64)) return { message: 'accessCodeLength', field: 'accessCode' };
  return null;
}

/** The rooms API body for the draft: a new room's, or the changes to `current` (nothing unchanged is sent). */
export function roomBody(draft: RoomDraft, current: RoomAnswer | null): Record<string, unknown> {
  const wanted: Record<string, unknown> = {
    name: draft.name.trim(),
    waiting_room: draft.waitingRoom,
    waiting_room_mode: draft.mode,
    mics_off_on_entry: draft.micsOff,
    moderator_link_ttl_secs: draft.ttlSecs,
  };
  if (!current) {
    if (draft.roomId.trim() !== '') wanted.room_id = draft.roomId.trim();
    if (draft.accessCode !== '') wanted.access_code = draft.accessCode;
    return wanted;
  }
  const was: Record<string, unknown> = {
    name: current.name,
    waiting_room: current.waiting_room,
    waiting_room_mode: current.waiting_room_mode,
    mics_off_on_entry: current.mics_off_on_entry,
    moderator_link_ttl_secs: current.moderator_link_ttl_secs,
  };
  const body = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => was[key] !== value));
  if (draft.accessCode !== '') body.access_code = draft.accessCode;
  else if (draft.removeAccessCode && current.access_code_set) body.access_code = null;
  const owner = draft.ownerEmail.trim();
  if (owner !== '' && owner.toLowerCase() !== (current.owner_email ?? '').toLowerCase()) body.owner_email = owner;
  return body;
}

function refusedWith(refusal: Refusal): MyRoomsState['error'] {
  if (refusal.code === 'room_exists') return { message: 'codeTaken', field: 'roomId' };
  if (refusal.code === 'waiting_room_mode_fixed') return { message: 'modeFixed', field: 'mode' };
  if (refusal.code === 'waiting_room_forced' || refusal.code === 'waiting_room_unavailable')
    return { message: 'scopeNotAllowed', field: 'waitingRoom' };
  if (refusal.code === 'invalid_field' || refusal.code === 'forbidden') {
    switch (refusal.field) {
      case 'name':
        return { message: 'nameTooLong', field: 'name' };
      case 'room_id':
        return { message: 'codeInvalid', field: 'roomId' };
      case 'access_code':
        return { message: 'accessCodeLength', field: 'accessCode' };
      case 'owner_email':
        return { message: 'ownerUnknown', field: 'ownerEmail' };
    }
  }
  return { message: 'failed', field: null };
}

export function myRooms(state: MyRoomsState, event: MyRoomsEvent): MyRoomsState {
  switch (event.type) {
    case 'listed':
      return { ...state, phase: 'ready', rooms: byName(event.rooms) };
    case 'listFailed':
      return { ...state, phase: 'failed', notice: { message: 'listFailed', name: '' } };
    case 'create':
      return { ...state, editor: { roomId: null, sending: false }, error: null, confirming: null, notice: null };
    case 'edit':
      if (!state.rooms.some((room) => room.room_id === event.roomId)) return state;
      return {
        ...state,
        editor: { roomId: event.roomId, sending: false },
        error: null,
        confirming: null,
        notice: null,
      };
    case 'closeEditor':
      return { ...state, editor: null, error: null };
    case 'submit': {
      // A second submit while the first is on its way does nothing.
      if (!state.editor || state.editor.sending) return state;
      const error = checkDraft(event.draft, state.editor.roomId === null);
      if (error) return { ...state, error, notice: null };
      return { ...state, editor: { ...state.editor, sending: true }, error: null, notice: null };
    }
    case 'saved': {
      const created = state.editor?.roomId === null;
      const rest = state.rooms.filter((room) => room.room_id !== event.room.room_id);
      return {
        ...state,
        rooms: byName([...rest, event.room]),
        editor: null,
        error: null,
        notice: { message: created ? 'created' : 'saved', name: event.room.name },
      };
    }
    case 'refused':
      if (!state.editor) return state;
      return { ...state, editor: { ...state.editor, sending: false }, error: refusedWith(event.refusal) };
    case 'askDelete':
      return { ...state, confirming: event.roomId, editor: null, error: null, notice: null };
    case 'keep':
      return { ...state, confirming: null };
    case 'deleted':
      return {
        ...state,
        rooms: state.rooms.filter((room) => room.room_id !== event.roomId),
        confirming: null,
        editor: state.editor?.roomId === event.roomId ? null : state.editor,
        notice: { message: 'deleted', name: nameOf(state, event.roomId) },
      };
    case 'copied':
      return {
        ...state,
        notice: {
          message: event.which === 'participant' ? 'participantCopied' : 'moderatorCopied',
          name: nameOf(state, event.roomId),
        },
      };
    case 'failed':
      return { ...state, confirming: null, notice: { message: event.message, name: nameOf(state, event.roomId) } };
  }
}
