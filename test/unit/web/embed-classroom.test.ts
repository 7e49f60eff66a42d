// Issue 31 point 10 through external_api.js: the hands become the embedded client's
// `raiseHandUpdated {id, handRaised}` events, and `toggleRaiseHand`, `endConference` and
// `muteRemoteParticipant` become the person's own gestures, the moderator's only for a moderator.
import t from 'tap';
import { classroomCommand, handUpdates } from '../../../src/web/embed-classroom.js';
import type { MeetingActions } from '../../../src/web/meeting-hooks.js';

const at = (iso: string) => Date.parse(iso);

t.test('raiseHandUpdated: a hand up says when (ms), a hand down says 0, an unchanged one nothing', async (t) => {
  const up = handUpdates(new Map(), [
    { participant_id: 'ben', raised_at: '2026-11-27T10:00:00.000Z' },
    { participant_id: 'ann', raised_at: '2026-11-27T10:00:05.000Z' },
  ]);
  t.same(
    up.events,
    [
      { id: 'ben', handRaised: at('2026-11-27T10:00:00.000Z') },
      { id: 'ann', handRaised: at('2026-11-27T10:00:05.000Z') },
    ],
    'in raising order',
  );
  const down = handUpdates(up.told, [{ participant_id: 'ann', raised_at: '2026-11-27T10:00:05.000Z' }]);
  t.same(down.events, [{ id: 'ben', handRaised: 0 }], "only Ben's hand changed: down");
  t.same(handUpdates(down.told, [{ participant_id: 'ann', raised_at: '2026-11-27T10:00:05.000Z' }]).events, []);
  const again = handUpdates(down.told, [
    { participant_id: 'ann', raised_at: '2026-11-27T10:00:05.000Z' },
    { participant_id: 'ben', raised_at: '2026-11-27T10:01:00.000Z' },
  ]);
  t.same(again.events, [{ id: 'ben', handRaised: at('2026-11-27T10:01:00.000Z') }], 'raised again, later');
  t.same(handUpdates(again.told, []).events, [
    { id: 'ann', handRaised: 0 },
    { id: 'ben', handRaised: 0 },
  ]);
});

function fakeActions(moderator: boolean) {
  const done: string[] = [];
  const actions = {
    toggleHand: () => done.push('hand'),
    endMeeting: () => done.push('end'),
    mute: (id: string) => done.push(`mute ${id}`),
    isModerator: () => moderator,
  } as unknown as MeetingActions;
  return { actions, done };
}

t.test('the commands: her own hand for anyone; end and mute for a moderator only', async (t) => {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (text: string) => warnings.push(text);
  t.teardown(() => {
    console.warn = warn;
  });

  const pupil = fakeActions(false);
  t.ok(classroomCommand('toggleRaiseHand', [], pupil.actions, 'ann'));
  t.ok(classroomCommand('endConference', [], pupil.actions, 'ann'));
  t.ok(classroomCommand('muteRemoteParticipant', ['ben'], pupil.actions, 'ann'));
  t.same(pupil.done, ['hand'], "a pupil's hand goes up; her end and mute send nothing");
  t.match(warnings, [/endConference: only a moderator/, /muteRemoteParticipant: only a moderator/], 'and say why');
  t.notOk(classroomCommand('toggleAudio', [], pupil.actions, 'ann'), 'other commands are the bridge’s');

  warnings.length = 0;
  const teacher = fakeActions(true);
  classroomCommand('endConference', [], teacher.actions, 'mod');
  classroomCommand('muteRemoteParticipant', ['ben'], teacher.actions, 'mod');
  classroomCommand('muteRemoteParticipant', ['ann', 'audio'], teacher.actions, 'mod');
  classroomCommand('muteRemoteParticipant', ['ann', 'video'], teacher.actions, 'mod');
  classroomCommand('muteRemoteParticipant', [''], teacher.actions, 'mod');
  classroomCommand('muteRemoteParticipant', ['mod'], teacher.actions, 'mod');
  t.same(teacher.done, ['end', 'mute ben', 'mute ann'], 'a moderator ends and mutes (audio, the default)');
  t.match(
    warnings,
    [/only the microphone/, /pass the participant id/, /toggleAudio/],
    'video, no id and herself are refused with a reason',
  );
});
