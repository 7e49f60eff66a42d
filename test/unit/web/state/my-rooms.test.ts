// "My rooms" as a reducer (issue 32 point 3): the list (sub-groups left out, by name), the room
// form's checks and the refusals it names a field for, the body sent (a new room's, or only what
// changed, with a hand-over), delete with a confirmation, and what is announced.
import t from 'tap';
import {
  checkDraft,
  initialRooms,
  myRooms,
  roomBody,
  type MyRoomsEvent,
  type RoomAnswer,
  type RoomDraft,
} from '../../../../src/web/state/my-rooms.js';

const room = (id: string, name: string, extra: Partial<RoomAnswer> = {}): RoomAnswer => ({
  room_id: id,
  name,
  waiting_room: 'all',
  waiting_room_mode: 'approval',
  moderator_link_ttl_secs: 120 * 86_400,
  access_code_set: false,
  mics_off_on_entry: true,
  parent_room_id: null,
  owner_account_id: 'acc-1',
  owner_email: 'dora@school.example',
  ...extra,
});
const draft = (extra: Partial<RoomDraft> = {}): RoomDraft => ({
  name: 'Maths 7b',
  roomId: '',
  waitingRoom: 'all',
  mode: 'approval',
  accessCode: '',
  removeAccessCode: false,
  micsOff: true,
  ttlSecs: 120 * 86_400,
  ownerEmail: '',
  ...extra,
});
const run = (...events: MyRoomsEvent[]) => events.reduce(myRooms, initialRooms);
const listed: MyRoomsEvent = {
  type: 'listed',
  rooms: [room('b-1', 'Physics'), room('a-1', 'art'), room('g-1', 'Group 1', { parent_room_id: 'b-1' })],
};
const refused = (code: string, field: string | null = null): MyRoomsEvent => ({
  type: 'refused',
  refusal: { code, field, retryAfter: null },
});

t.test('the list: top-level rooms by name; loading and failing', async (t) => {
  t.equal(initialRooms.phase, 'loading');
  const state = run(listed);
  t.equal(state.phase, 'ready');
  t.same(
    state.rooms.map((r) => r.room_id),
    ['a-1', 'b-1'],
    'by name, sub-groups left out',
  );
  t.same(run({ type: 'listFailed' }).notice, { message: 'listFailed', name: '' });
});

t.test('create: checks before sending, one submit at a time, the answer joins the list', async (t) => {
  const open = run(listed, { type: 'create' });
  t.same(open.editor, { roomId: null, sending: false });
  t.same(myRooms(open, { type: 'submit', draft: draft({ name: '  ' }) }).error, {
    message: 'nameMissing',
    field: 'name',
  });
  t.same(myRooms(open, { type: 'submit', draft: draft({ name: 'x'.repeat(201) }) }).error, {
    message: 'nameTooLong',
    field: 'name',
  });
  t.same(myRooms(open, { type: 'submit', draft: draft({ roomId: 'a b' }) }).error, {
    message: 'codeInvalid',
    field: 'roomId',
  });
  t.same(myRooms(open, { type: 'submit', draft: draft({ accessCode: '123' }) }).error, {
    message: 'accessCodeLength',
    field: 'accessCode',
  });
  const sending = myRooms(open, { type: 'submit', draft: draft() });
  t.same(sending.editor, { roomId: null, sending: true });
  t.equal(myRooms(sending, { type: 'submit', draft: draft() }), sending, 'a second submit while sending does nothing');
  t.same(myRooms(sending, refused('room_exists', 'room_id')).error, { message: 'codeTaken', field: 'roomId' });
  t.same(myRooms(sending, refused('invalid_field', 'name')).error, { message: 'nameTooLong', field: 'name' });
  t.same(myRooms(sending, refused('waiting_room_mode_fixed', 'waiting_room_mode')).error, {
    message: 'modeFixed',
    field: 'mode',
  });
  t.same(myRooms(sending, refused('waiting_room_forced', 'waiting_room')).error, {
    message: 'scopeNotAllowed',
    field: 'waitingRoom',
  });
  t.same(myRooms(sending, refused('network')).error, { message: 'failed', field: null });
  t.equal(myRooms(sending, refused('network')).editor?.sending, false, 'she may try again');
  const saved = myRooms(sending, { type: 'saved', room: room('abc-defg-hij', 'Maths 7b') });
  t.equal(saved.editor, null, 'the form closes');
  t.same(
    saved.rooms.map((r) => r.name),
    ['art', 'Maths 7b', 'Physics'],
  );
  t.same(saved.notice, { message: 'created', name: 'Maths 7b' }, 'announced');
  t.same(roomBody(draft({ roomId: ' maths-7b ', accessCode: 'sesam' }), null), {
    name: 'Maths 7b',
    waiting_room: 'all',
    waiting_room_mode: 'approval',
    mics_off_on_entry: true,
    moderator_link_ttl_secs: 120 * 86_400,
    room_id: 'maths-7b',
    access_code: 'sesam',
  });
  t.notOk('room_id' in roomBody(draft(), null), 'no code chosen: the service draws a readable one');
});

t.test('edit: only what changed is sent; the code kept, removed or replaced; a hand-over', async (t) => {
  const current = room('a-1', 'art', { access_code_set: true });
  const state = run({ type: 'listed', rooms: [current] }, { type: 'edit', roomId: 'a-1' });
  t.same(state.editor, { roomId: 'a-1', sending: false });
  t.equal(run(listed, { type: 'edit', roomId: 'nope' }).editor, null, 'no such room: nothing opens');
  const same = draft({ name: 'art' });
  t.same(roomBody(same, current), {}, 'nothing changed, nothing sent');
  t.same(roomBody(draft({ name: 'Art 8', micsOff: false }), current), { name: 'Art 8', mics_off_on_entry: false });
  t.same(roomBody({ ...same, removeAccessCode: true }, current), { access_code: null });
  t.same(roomBody({ ...same, accessCode: 'neu-1234' }, current), { access_code: 'neu-1234' });
  t.same(roomBody({ ...same, ownerEmail: 'DORA@school.example' }, current), {}, 'the same owner is no hand-over');
  t.same(roomBody({ ...same, ownerEmail: ' emil@school.example ' }, current), { owner_email: 'emil@school.example' });
  const sending = myRooms(state, { type: 'submit', draft: same });
  t.same(myRooms(sending, refused('invalid_field', 'owner_email')).error, {
    message: 'ownerUnknown',
    field: 'ownerEmail',
  });
  const saved = myRooms(sending, { type: 'saved', room: { ...current, owner_email: 'emil@school.example' } });
  t.same(saved.notice, { message: 'saved', name: 'art' });
  t.equal(saved.rooms[0]!.owner_email, 'emil@school.example');
  t.equal(run(listed, { type: 'create' }, { type: 'closeEditor' }).editor, null, 'Cancel closes');
  t.same(checkDraft(draft({ roomId: 'a b' }), false), null, 'the code is not checked when it cannot change');
});

t.test('delete asks first; copies and failures are announced with the room', async (t) => {
  const asking = run(listed, { type: 'askDelete', roomId: 'b-1' });
  t.equal(asking.confirming, 'b-1');
  t.equal(myRooms(asking, { type: 'keep' }).confirming, null, 'kept');
  const gone = myRooms(asking, { type: 'deleted', roomId: 'b-1' });
  t.same(
    gone.rooms.map((r) => r.room_id),
    ['a-1'],
  );
  t.same(gone.notice, { message: 'deleted', name: 'Physics' });
  t.same(run(listed, { type: 'copied', roomId: 'a-1', which: 'participant' }).notice, {
    message: 'participantCopied',
    name: 'art',
  });
  t.same(run(listed, { type: 'copied', roomId: 'b-1', which: 'moderator' }).notice, {
    message: 'moderatorCopied',
    name: 'Physics',
  });
  t.same(run(listed, { type: 'failed', roomId: 'a-1', message: 'copyFailed' }).notice, {
    message: 'copyFailed',
    name: 'art',
  });
});
