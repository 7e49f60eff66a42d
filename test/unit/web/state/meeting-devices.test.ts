// Issue 31 point 1: a meeting view starts from her tracks, not from "everything on". A muted
// pupil moved to a sub-group (a new view, a new welcome) is still muted there and back, and
// tells the server so; a pupil whose tracks are live starts live as before.
import t from 'tap';
import type { ServerMessage } from '../../../../src/protocol/live.js';
import { meetingWith, receive } from '../../../../src/web/state/meeting.js';
import { person, welcomeOf } from '../../../helpers/meeting-messages.js';

const pia = person('p1', 'Pia', 'participant', { audio: false, video: false });
const welcome: ServerMessage = welcomeOf(pia, { room_id: 'lesson-g1', room_name: 'Group 1' });

t.test('the first state of a view is what her tracks are', async (t) => {
  const muted = receive(meetingWith({ audio: false, video: false }), welcome);
  t.same(
    { audio: muted.state.audio, video: muted.state.video },
    { audio: false, video: false },
    'muted and camera off after the welcome',
  );
  t.ok(
    muted.effects.some((e) => e.do === 'publish'),
    'the server is told (her tile then shows her muted)',
  );
  const live = receive(meetingWith({ audio: true, video: true }), welcome);
  t.same({ audio: live.state.audio, video: live.state.video }, { audio: true, video: true }, 'live tracks start live');
  const askedMuted = receive(meetingWith({ audio: true, video: true }), { ...welcome, mute_on_start: true });
  t.same(
    { audio: askedMuted.state.audio, video: askedMuted.state.video },
    { audio: false, video: true },
    'a room with microphones off on entry turns the microphone off, not the camera',
  );
});
