/**
 * "My rooms" at /rooms (issue 32 point 3): the organiser's rooms (an admin's: every room, those of
 * integrations marked), the room form (create, change, hand over), delete with a confirmation,
 * copy the participant and the moderator link, and Start (a moderator link fetched with the
 * cookie, then followed). State in state/my-rooms.ts; this file renders it and sends the calls.
 */
import { call, type Answer, type Me } from './account-api.js';
import { announce } from './announce.js';
import { button, el, field } from './dom.js';
import {
  initialRooms,
  myRooms,
  roomBody,
  type DraftField,
  type MyRoomsEvent,
  type MyRoomsState,
  type RoomAnswer,
  type RoomDraft,
  type WaitingMode,
  type WaitingScope,
} from './state/my-rooms.js';
import { fill, words } from './words/index.js';

const w = words.myRooms;
type RoomPage = { rooms: RoomAnswer[]; next_cursor: string | null };
const day = 86_400;
/** The lifetimes offered for a moderator link (the service takes 1 hour to 365 days). */
const ttlChoices = [1, 7, 30, 120, 365].map((days) => days * day);

const roomPath = (roomId: string) => `/room/${encodeURIComponent(roomId)}`;
const participantLink = (roomId: string) => `${location.origin}${roomPath(roomId)}`;
const ttlLabel = (secs: number) =>
  secs === day ? w.ttlOneDay : fill(w.ttlDays, { days: String(Math.round((secs / day) * 10) / 10) });

function select<T extends string | number>(options: readonly (readonly [T, string])[], value: T): HTMLSelectElement {
  const control = el('select', {});
  for (const [key, label] of options) control.append(el('option', { value: String(key), text: label }));
  control.value = String(value);
  return control;
}

/** Radio buttons in a fieldset: every choice's words on screen, on a phone too. */
function radios<T extends string>(legend: string, options: readonly (readonly [T, string])[], value: T) {
  const group = `g-${Math.random().toString(36).slice(2, 9)}`;
  const inputs = options.map(([key, label]) => {
    const input = el('input', { type: 'radio', name: group, value: key });
    input.checked = key === value;
    return { input, label: el('label', { class: 'choice' }, input, label) };
  });
  const element = el('fieldset', {}, el('legend', { text: legend }), ...inputs.map((i) => i.label));
  const checked = () => inputs.find((i) => i.input.checked)?.input ?? inputs[0]!.input;
  return {
    element,
    value: () => checked().value as T,
    /** The control an error points at: the choice made. */
    target: checked,
    disable(disabled: boolean) {
      element.disabled = disabled;
    },
  };
}

function checkbox(label: string, checked: boolean): { wrapper: HTMLElement; box: HTMLInputElement } {
  const box = el('input', { type: 'checkbox' });
  box.checked = checked;
  return { wrapper: el('label', { class: 'check' }, box, label), box };
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** The "My rooms" section of /rooms; it loads the rooms itself. `heading` takes the focus when a room goes. */
export function myRoomsView(account: Me['account'], csrf: string, heading: HTMLElement): HTMLElement {
  let state = initialRooms;
  const status = el('p', { class: 'status-note', text: w.loading });
  const list = el('ul', { class: 'room-list', 'aria-label': words.account.roomsTitle });
  const editorSlot = el('div', {});
  const newRoom = button(w.newRoom, () => {
    dispatch({ type: 'create' });
  });
  newRoom.classList.add('primary');
  let form: RoomForm | null = null;

  const dispatch = (event: MyRoomsEvent): MyRoomsState => {
    const before = state;
    state = myRooms(state, event);
    if (state.editor?.roomId !== before.editor?.roomId || (state.editor === null) !== (before.editor === null)) {
      form = state.editor ? roomForm(state, account.admin, dispatch, send) : null;
      editorSlot.replaceChildren(...(form ? [form.element] : []));
      newRoom.hidden = state.editor !== null;
      if (form) form.focus();
      else newRoom.focus();
    }
    form?.update(state);
    if (state.rooms !== before.rooms || state.confirming !== before.confirming || state.phase !== before.phase)
      renderList();
    if (state.notice && state.notice !== before.notice) {
      const text = fill(w[state.notice.message], { name: state.notice.name });
      status.textContent = text;
      status.hidden = false;
      announce(text);
    } else if (state.phase === 'ready' && before.phase !== 'ready') {
      status.hidden = state.rooms.length > 0;
      status.textContent = w.none;
    }
    return state;
  };

  const send = (draft: RoomDraft): void => {
    const editing = state.editor?.roomId ?? null;
    const current = state.rooms.find((room) => room.room_id === editing) ?? null;
    if (dispatch({ type: 'submit', draft }).editor?.sending !== true) return;
    const path = current ? `/api/rooms/${encodeURIComponent(current.room_id)}` : '/api/rooms';
    void call<RoomAnswer>(current ? 'PATCH' : 'POST', path, roomBody(draft, current), csrf).then((answer) => {
      if (answer.ok && answer.body) {
        dispatch({ type: 'saved', room: answer.body });
        list.querySelector<HTMLElement>(`[data-room="${CSS.escape(answer.body.room_id)}"] h2`)?.focus();
      } else dispatch({ type: 'refused', refusal: answer.refusal });
    });
  };

  /** A moderator link; for Start it names her (the arrival then does not ask), a copied one names nobody. */
  const moderatorLink = async (room: RoomAnswer, asHer: boolean): Promise<string | null> => {
    const path = `/api/rooms/${encodeURIComponent(room.room_id)}/links`;
    const name = asHer ? account.name.trim() : '';
    let answer = await call<{ url: string }>('POST', path, { role: 'moderator', ...(name ? { name } : {}) }, csrf);
    // A name the room would refuse (the rule of a typed name): she types one on arrival instead.
    if (!answer.ok && name && answer.refusal.field === 'name')
      answer = await call<{ url: string }>('POST', path, { role: 'moderator' }, csrf);
    return answer.ok && answer.body ? answer.body.url : null;
  };

  function roomItem(room: RoomAnswer): HTMLElement {
    const named = (key: 'startName' | 'copyParticipantName' | 'copyModeratorName' | 'editName' | 'deleteName') =>
      fill(w[key], { name: room.name });
    const title = el('h2', { text: room.name, tabindex: '-1' });
    const link = el('input', {
      type: 'text',
      readonly: true,
      class: 'room-link',
      value: participantLink(room.room_id),
    });
    const waiting =
      room.waiting_room === 'off'
        ? w.waitingOff
        : `${room.waiting_room === 'all' ? w.waitingAll : w.waitingGuests} (${room.waiting_room_mode === 'approval' ? w.approval : w.untilModerator})`;
    const facts = el(
      'ul',
      { class: 'room-facts' },
      el('li', {}, `${w.code}: `, el('code', { text: room.room_id })),
      el('li', { text: waiting }),
      room.access_code_set && el('li', { text: w.accessCodeSet }),
      room.mics_off_on_entry && el('li', { text: w.micsOffShort }),
      account.admin &&
        el('li', {
          class: 'owner',
          text: room.owner_email ? fill(w.ownedBy, { email: room.owner_email }) : w.integration,
        }),
    );
    const start = button(w.start, () => {
      start.disabled = true;
      start.textContent = w.starting;
      void moderatorLink(room, true).then((url) => {
        if (url) location.assign(url);
        else {
          start.disabled = false;
          start.textContent = w.start;
          dispatch({ type: 'failed', roomId: room.room_id, message: 'failed' });
        }
      });
    });
    start.classList.add('primary');
    start.setAttribute('aria-label', named('startName'));
    const copyParticipant = button(w.copyParticipant, () => {
      void copyText(link.value).then((ok) =>
        dispatch(
          ok
            ? { type: 'copied', roomId: room.room_id, which: 'participant' }
            : { type: 'failed', roomId: room.room_id, message: 'copyFailed' },
        ),
      );
    });
    copyParticipant.setAttribute('aria-label', named('copyParticipantName'));
    const copyModerator = button(w.copyModerator, () => {
      void moderatorLink(room, false)
        .then((url) => (url ? copyText(`${location.origin}${url}`) : false))
        .then((ok) =>
          dispatch(
            ok
              ? { type: 'copied', roomId: room.room_id, which: 'moderator' }
              : { type: 'failed', roomId: room.room_id, message: 'copyFailed' },
          ),
        );
    });
    copyModerator.setAttribute('aria-label', named('copyModeratorName'));
    const edit = button(w.edit, () => dispatch({ type: 'edit', roomId: room.room_id }));
    edit.setAttribute('aria-label', named('editName'));
    const remove = button(w.delete, () => {
      dispatch({ type: 'askDelete', roomId: room.room_id });
      list.querySelector<HTMLElement>(`[data-room="${CSS.escape(room.room_id)}"] .keep`)?.focus();
    });
    remove.setAttribute('aria-label', named('deleteName'));
    remove.classList.add('delete-room');
    const actions = el('div', { class: 'toolbar' }, start, copyParticipant, copyModerator, edit, remove);
    const confirm =
      state.confirming === room.room_id
        ? el(
            'div',
            { class: 'confirm', role: 'group', 'aria-label': named('deleteName') },
            el('p', { text: fill(w.confirmDelete, { name: room.name }) }),
            el(
              'div',
              { class: 'toolbar' },
              button(w.deleteForGood, () => void deleteRoom(room), { class: 'danger' }),
              button(
                w.keep,
                () => {
                  dispatch({ type: 'keep' });
                  list
                    .querySelector<HTMLElement>(`[data-room="${CSS.escape(room.room_id)}"] button.delete-room`)
                    ?.focus();
                },
                { class: 'keep' },
              ),
            ),
          )
        : null;
    return el(
      'li',
      { class: 'room-card', 'data-room': room.room_id },
      title,
      facts,
      field(w.participantLink, link),
      actions,
      confirm,
    );
  }

  async function deleteRoom(room: RoomAnswer): Promise<void> {
    const answer = await call('DELETE', `/api/rooms/${encodeURIComponent(room.room_id)}`, undefined, csrf);
    if (answer.ok || answer.status === 404) {
      dispatch({ type: 'deleted', roomId: room.room_id });
      heading.focus();
    } else dispatch({ type: 'failed', roomId: room.room_id, message: 'failed' });
  }

  function renderList(): void {
    list.replaceChildren(...state.rooms.map(roomItem));
    list.hidden = state.rooms.length === 0;
  }

  void (async () => {
    const rooms: RoomAnswer[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const answer: Answer<RoomPage> = await call<RoomPage>(
        'GET',
        `/api/rooms?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (!answer.ok || !answer.body) {
        dispatch({ type: 'listFailed' });
        return;
      }
      rooms.push(...answer.body.rooms);
      cursor = answer.body.next_cursor;
    }
    dispatch({ type: 'listed', rooms });
  })();

  list.hidden = true;
  return el(
    'section',
    { class: 'my-rooms' },
    el('p', { class: 'intro', text: w.intro }),
    el('p', {}, newRoom),
    editorSlot,
    status,
    list,
  );
}

interface RoomForm {
  readonly element: HTMLElement;
  focus(): void;
  update(state: MyRoomsState): void;
}

/** The room form, filled from the room it changes (or the defaults of a new one). */
function roomForm(
  state: MyRoomsState,
  admin: boolean,
  dispatch: (event: MyRoomsEvent) => MyRoomsState,
  send: (draft: RoomDraft) => void,
): RoomForm {
  const current = state.rooms.find((room) => room.room_id === state.editor?.roomId) ?? null;
  const name = el('input', { type: 'text', required: true, maxlength: '200', autocomplete: 'off' });
  name.value = current?.name ?? '';
  const roomId = el('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const scope = radios<WaitingScope>(
    w.waitingRoom,
    [
      ['off', w.scopeOff],
      ['guests', w.scopeGuests],
      ['all', w.scopeAll],
    ],
    current?.waiting_room ?? 'all',
  );
  const mode = radios<WaitingMode>(
    w.mode,
    [
      ['approval', w.modeApproval],
      ['until_moderator', w.modeUntilModerator],
    ],
    current?.waiting_room_mode ?? 'approval',
  );
  const accessCode = el('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const removeCode = checkbox(w.removeAccessCode, false);
  const mics = checkbox(w.micsOff, current?.mics_off_on_entry ?? true);
  const ttlNow = current?.moderator_link_ttl_secs ?? 120 * day;
  const ttl = select<number>(
    [...new Set([...ttlChoices, ttlNow])].sort((a, b) => a - b).map((secs) => [secs, ttlLabel(secs)] as const),
    ttlNow,
  );
  const owner = el('input', { type: 'email', autocomplete: 'off', spellcheck: 'false' });
  owner.value = current?.owner_email ?? '';
  const syncMode = () => mode.disable(scope.value() === 'off');
  scope.element.addEventListener('change', syncMode);
  syncMode();

  const controls: Record<DraftField, () => HTMLElement> = {
    name: () => name,
    roomId: () => roomId,
    waitingRoom: scope.target,
    accessCode: () => accessCode,
    mode: mode.target,
    ownerEmail: () => owner,
  };
  const error = el('p', { class: 'error', id: 'room-form-error', hidden: true });
  const submitLabel = current ? w.save : w.create;
  const submit = el('button', { type: 'submit', class: 'primary', text: submitLabel });
  const cancel = button(w.cancel, () => dispatch({ type: 'closeEditor' }));
  const title = el('h2', { text: current ? fill(w.editHeading, { name: current.name }) : w.newHeading });
  const form = el(
    'form',
    { novalidate: true, class: 'room-form', 'aria-label': title.textContent ?? '' },
    title,
    field(w.name, name),
    current ? null : field(w.roomCode, roomId, w.roomCodeHint),
    scope.element,
    mode.element,
    field(w.accessCode, accessCode, current?.access_code_set ? w.accessCodeKeep : w.accessCodeHint),
    current?.access_code_set ? removeCode.wrapper : null,
    mics.wrapper,
    field(w.ttl, ttl),
    current && admin ? field(w.owner, owner, w.ownerHint) : null,
    error,
    el('div', { class: 'toolbar' }, submit, cancel),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    send({
      name: name.value,
      roomId: roomId.value,
      waitingRoom: scope.value(),
      mode: mode.value(),
      accessCode: accessCode.value,
      removeAccessCode: removeCode.box.checked,
      micsOff: mics.box.checked,
      ttlSecs: Number(ttl.value),
      ownerEmail: owner.value,
    });
  });
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') dispatch({ type: 'closeEditor' });
  });
  let shown: MyRoomsState['error'] = null;
  return {
    element: form,
    focus: () => name.focus(),
    update(next) {
      const sending = next.editor?.sending === true;
      submit.disabled = sending;
      submit.textContent = sending ? (current ? w.saving : w.creating) : submitLabel;
      if (next.error === shown) return;
      shown = next.error;
      for (const control of form.querySelectorAll('input')) {
        control.removeAttribute('aria-invalid');
        const hint = document.getElementById(`${control.id}-hint`);
        if (hint) control.setAttribute('aria-describedby', hint.id);
        else control.removeAttribute('aria-describedby');
      }
      if (!next.error) {
        error.hidden = true;
        return;
      }
      const text = w[next.error.message];
      error.textContent = text;
      error.hidden = false;
      const target = next.error.field ? controls[next.error.field]() : null;
      if (target) {
        target.setAttribute('aria-invalid', 'true');
        const described = target.getAttribute('aria-describedby');
        target.setAttribute('aria-describedby', described ? `${described} ${error.id}` : error.id);
      }
      (target ?? submit).focus();
      announce(text);
    },
  };
}
