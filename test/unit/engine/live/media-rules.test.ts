import t from 'tap';
import type { LockSettings } from '../../../../src/engine/live/meeting-locks.js';
import type { MediaBackend, MediaContext } from '../../../../src/engine/live/media-port.js';
import { mayAudio, mayVideo } from '../../../../src/protocol/locks.js';
import { LiveFixture } from '../../../helpers/live-fixture.js';

t.test('the one lock rule: locks bind participants, never moderators', async (t) => {
  const open = { mic: false, cam: false, cams_moderators_only: false };
  t.ok(mayAudio('participant', open) && mayVideo('participant', open));
  t.notOk(mayAudio('participant', { ...open, mic: true }));
  t.ok(mayVideo('participant', { ...open, mic: true }), 'the microphone lock leaves video alone');
  t.notOk(mayVideo('participant', { ...open, cam: true }));
  t.notOk(mayVideo('participant', { ...open, cams_moderators_only: true }));
  t.ok(mayAudio('participant', { ...open, cam: true, cams_moderators_only: true }), 'camera locks leave audio alone');
  const all = { mic: true, cam: true, cams_moderators_only: true };
  t.ok(mayAudio('moderator', all) && mayVideo('moderator', all));
});

t.test(
  'a lock turns off what it forbids for participants, tells everyone, and keeps the moderator sending',
  async (t) => {
    const f = new LiveFixture();
    const m = await f.connect(await f.enter('Mod', 'r1', true));
    const a = await f.connect(await f.enter('Ann'));
    a.send({ type: 'state', audio: true, video: true, screen: true });
    m.send({ type: 'state', audio: true, video: true, screen: false });
    a.send({ type: 'speaking', speaking: true });
    // A room hears media changes at most every 250 ms (media-flush.ts): let these go out.
    f.timers.advance(250);
    m.conn.clear();
    m.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: true } });
    await f.settled();
    t.same(m.conn.last('locks')?.locks, { mic: true, cam: false, cams_moderators_only: true });
    t.same(
      m.conn.last('speaking'),
      { type: 'speaking', participant_id: a.participant.participantId, speaking: false },
      'muted ends speaking',
    );
    t.match(m.conn.last('state')?.participant, {
      participant_id: a.participant.participantId,
      audio: false,
      video: false,
      screen: false,
    });
    t.equal(m.conn.of('state').length, 1, 'the moderator is not touched');
    t.equal(a.conn.of('error').length, 0, 'a lock is not an error to whom it turns off');
    a.send({ type: 'state', audio: true, video: false, screen: false });
    t.equal(a.conn.last('error')?.code, 'locked', 'asking for what is locked is refused in words');
    t.match(a.conn.last('state')?.participant, { audio: false });
  },
);

t.test('the media backend is injected: signals, connections, locks and the end reach it', async (t) => {
  const calls: string[] = [];
  let context: MediaContext | null = null;
  const backend: MediaBackend = {
    name: 'recording',
    kindFor: () => 'janus',
    relaySignal: (from, to) => (
      calls.push(`signal ${from}→${to}`),
      { ok: false, code: 'invalid_signal', message: 'no' }
    ),
    connected: (peer) => void calls.push(`connected ${peer.participantId}`),
    disconnected: (peer) => void calls.push(`disconnected ${peer.participantId}`),
    locksChanged: (_meetingId, locks: LockSettings) => void calls.push(`locks mic=${locks.mic}`),
    meetingEnded: () => void calls.push('ended'),
  };
  const f = new LiveFixture({
    media: (given) => {
      context = given;
      return backend;
    },
  });
  const m = await f.connect(await f.enter('Mod', 'r1', true));
  const a = await f.connect(await f.enter('Ann'));
  t.equal(f.hub.mediaBackend, backend);
  t.equal(a.conn.last('welcome')?.media, 'janus', "the welcome names the meeting's media as the backend decides it");
  a.send({ type: 'signal', to: m.participant.participantId, data: {} });
  t.same(
    a.conn.last('error'),
    { type: 'error', code: 'invalid_signal', message: 'no' },
    "the backend's refusal reaches the sender",
  );
  m.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
  await f.settled();
  t.match(
    context!.peer(a.participant.participantId),
    { role: 'participant', roomId: 'r1' },
    'the context knows the admitted',
  );
  t.equal(context!.peer('nobody'), null);
  t.ok(context!.deliver(m.participant.participantId, { type: 'subject', subject: 'via backend' }));
  t.equal(m.conn.last('subject')?.subject, 'via backend');
  f.disconnect(a);
  t.equal(
    context!.deliver(a.participant.participantId, { type: 'subject', subject: 'x' }),
    false,
    'nobody to deliver to after the close',
  );
  await f.engine.meetings.end('r1');
  t.same(calls, [
    `connected ${m.participant.participantId}`,
    `connected ${a.participant.participantId}`,
    `signal ${a.participant.participantId}→${m.participant.participantId}`,
    'locks mic=true',
    `disconnected ${a.participant.participantId}`,
    'ended',
  ]);
});

t.test(
  'through an SFU who speaks is measured by the server: a page claim is ignored, the backend decides',
  async (t) => {
    let context: MediaContext | null = null;
    let kind: 'mesh' | 'janus' = 'janus';
    const quiet = () => undefined;
    const backend: MediaBackend = {
      name: 'measuring',
      kindFor: () => kind,
      relaySignal: () => ({ ok: true }),
      connected: quiet,
      disconnected: quiet,
      locksChanged: quiet,
      meetingEnded: quiet,
    };
    const f = new LiveFixture({ media: (given) => ((context = given), backend) });
    const m = await f.connect(await f.enter('Mod', 'r1', true));
    const a = await f.connect(await f.enter('Ann'));
    a.send({ type: 'state', audio: true, video: false, screen: false });
    m.conn.clear();
    a.send({ type: 'speaking', speaking: true });
    t.same(m.conn.of('speaking'), [], "her page's claim moves nothing in a Janus meeting");
    context!.speaking(a.participant.participantId, true);
    f.timers.advance(250);
    t.same(
      m.conn.last('speaking'),
      { type: 'speaking', participant_id: a.participant.participantId, speaking: true },
      "the server's measure is told to everyone",
    );
    context!.speaking(a.participant.participantId, false);
    f.timers.advance(250);
    t.equal(m.conn.last('speaking')?.speaking, false);
    context!.speaking('nobody', true);
    t.equal(m.conn.of('speaking').length, 2, 'a measure about no member is dropped');
    kind = 'mesh';
    a.send({ type: 'speaking', speaking: true });
    f.timers.advance(250);
    t.equal(
      m.conn.last('speaking')?.speaking,
      true,
      'on the mesh the page is the only one that hears her, so its claim counts',
    );
  },
);
