// Issue 31 point 10: the everyday controls as reducers, without a browser. The meeting's reducer
// (state/meeting.ts) on `muted`, `hands` and `reaction`; the classroom's (state/classroom.ts):
// hands in raising order and who hears what, reactions shown and taken away, who left.
import t from 'tap';
import type { ParticipantView, RaisedHand } from '../../../../src/protocol/live.js';
import {
  handPlace,
  handsChanged,
  initialClassroom,
  personGone,
  reacted,
  reactionOver,
  type Context,
} from '../../../../src/web/state/classroom.js';
import { initialMeeting, receive, type MeetingState } from '../../../../src/web/state/meeting.js';
import { person, welcomeOf } from '../../../helpers/meeting-messages.js';

const ada = person('p1', 'Ada');
const bea = person('p2', 'Bea');
const cy = person('p3', 'Ms Cy', 'moderator');

function joined(self: ParticipantView): MeetingState {
  const welcome = welcomeOf(self, { participants: [ada, bea, cy].filter((p) => p !== self) });
  return receive(initialMeeting, welcome).state;
}

const names = new Map([ada, bea, cy].map((p) => [p.participant_id, p.name]));
const asPupil: Context = { self: 'p1', moderator: false, names };
const asTeacher: Context = { self: 'p3', moderator: true, names };
const hand = (id: string, at: string): RaisedHand => ({ participant_id: id, raised_at: at });

t.test('a moderator muted her: the microphone goes off, the server is told, and she hears who', async (t) => {
  const before = joined(ada);
  t.equal(before.audio, true, 'her microphone was on');
  const step = receive(before, { type: 'muted', by: 'p3', by_name: 'Ms Cy' });
  t.equal(step.state.audio, false, 'it is off now');
  t.same(
    step.effects,
    [{ do: 'publish' }, { do: 'mutedBy', name: 'Ms Cy' }, { do: 'announce', said: { key: 'mutedBy', name: 'Ms Cy' } }],
    'the server hears it, the note is shown, and it is said',
  );
  const again = receive(step.state, { type: 'muted', by: 'p3', by_name: 'Ms Cy' });
  t.notOk(
    again.effects.some((e) => e.do === 'publish'),
    'muted again while off: nothing to tell the server',
  );
  t.equal(again.state.audio, false);
});

t.test('hands and reactions pass from the meeting to the classroom view', async (t) => {
  const state = joined(ada);
  const hands = [hand('p2', '2026-01-01T10:00:00.000Z')];
  t.same(receive(state, { type: 'hands', hands }).effects, [{ do: 'hands', hands }]);
  t.same(receive(state, { type: 'reaction', participant_id: 'p2', reaction: 'heart' }).effects, [
    { do: 'reaction', participant_id: 'p2', reaction: 'heart' },
  ]);
});

t.test('hands in raising order: places, and who hears of which', async (t) => {
  const first = handsChanged(initialClassroom, [hand('p2', 'a'), hand('p1', 'b')], asTeacher);
  t.same(
    first.state.hands.map((h) => h.participant_id),
    ['p2', 'p1'],
    'the server order is kept',
  );
  t.equal(handPlace(first.state, 'p2'), 1, 'Bea raised first');
  t.equal(handPlace(first.state, 'p1'), 2);
  t.equal(handPlace(first.state, 'p3'), null, 'the teacher has no hand up');
  t.same(
    first.said,
    [
      { key: 'handRaised', name: 'Bea' },
      { key: 'handRaised', name: 'Ada' },
    ],
    'the moderator hears each hand go up',
  );
  const pupil = handsChanged(initialClassroom, [hand('p2', 'a'), hand('p1', 'b')], asPupil);
  t.same(pupil.said, [{ key: 'yourHandRaised' }], "a pupil hears her own hand, not the others'");

  const lowered = handsChanged(pupil.state, [hand('p2', 'a')], asPupil);
  t.same(lowered.said, [{ key: 'yourHandLowered' }], 'her hand lowered (by her or a moderator) is said');
  const teacherSees = handsChanged(first.state, [hand('p1', 'b')], asTeacher);
  t.same(teacherSees.said, [{ key: 'handLowered', name: 'Bea' }], 'the moderator hears a hand go down');
  t.equal(handPlace(teacherSees.state, 'p1'), 1, 'the next hand moves up');

  const unknown = handsChanged(initialClassroom, [hand('ghost', 'a')], asTeacher);
  t.same(unknown.state.hands, [], 'a hand of nobody the page knows is not shown');
  t.same(unknown.said, []);
});

t.test('a reaction is shown on her tile until its time is over, a later one stays', async (t) => {
  const one = reacted(initialClassroom, 'p2', 'celebrate', asPupil);
  t.same(one.said, [{ key: 'reacted', name: 'Bea', reaction: 'celebrate' }], 'said with her name');
  t.equal(one.state.reactions.get('p2')?.reaction, 'celebrate', 'on her tile');
  const shownFirst = one.state.reactions.get('p2')!.shown;
  const two = reacted(one.state, 'p2', 'heart', asPupil);
  const over = reactionOver(two.state, 'p2', shownFirst);
  t.equal(over.reactions.get('p2')?.reaction, 'heart', "the first one's end does not take the second away");
  const gone = reactionOver(over, 'p2', two.state.reactions.get('p2')!.shown);
  t.notOk(gone.reactions.has('p2'), 'the second goes at its own end');
  t.same(reacted(initialClassroom, 'ghost', 'laugh', asPupil), { state: initialClassroom, said: [] });
});

t.test('someone who left takes her hand and her reaction with her', async (t) => {
  let state = handsChanged(initialClassroom, [hand('p2', 'a'), hand('p1', 'b')], asTeacher).state;
  state = reacted(state, 'p2', 'laugh', asTeacher).state;
  const after = personGone(state, 'p2');
  t.same(
    after.hands.map((h) => h.participant_id),
    ['p1'],
  );
  t.notOk(after.reactions.has('p2'));
  t.equal(personGone(after, 'p2'), after, 'nothing more to take: the same state');
});
