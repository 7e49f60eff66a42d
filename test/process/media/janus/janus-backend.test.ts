import t from 'tap';
import { unlocked, type LockSettings } from '../../../../src/engine/live/meeting-locks.js';
import type { MediaContext, MediaPeer } from '../../../../src/engine/live/media-port.js';
import { JanusBackend } from '../../../../src/media/janus/janus-backend.js';
import { JanusRooms } from '../../../../src/media/janus/janus-rooms.js';
import { JanusSession } from '../../../../src/media/janus/janus-session.js';
import { VideoRoomHandle } from '../../../../src/media/janus/videoroom.js';
import type { ServerMessage } from '../../../../src/protocol/live.js';
import { janusFor, janusMissing, testRoomOptions } from '../../../helpers/janus.js';
import { until } from '../../../helpers/net.js';
import { chromeSdp } from '../../../unit/media/sdp-samples.js';

const offer = (audio: string, video: string) =>
  chromeSdp([
    { kind: 'audio', direction: audio },
    { kind: 'video', direction: video },
  ]);

/** JanusRooms that also notes every moderate it sends (Janus accepting it shows the ids and mids are right). */
class NotingRooms extends JanusRooms {
  readonly moderated: string[] = [];
  override async moderate(meetingId: string, participantId: string, mid: string, mute: boolean): Promise<void> {
    await super.moderate(meetingId, participantId, mid, mute);
    this.moderated.push(`${participantId} ${mid} ${mute ? 'muted' : 'forwarded'}`);
  }
}

t.test('the Janus backend against a real Janus', { skip: janusMissing ?? false }, async (t) => {
  const { janus } = await janusFor(t, 42_900);
  const peers = new Map<string, MediaPeer>([
    ['mod', { participantId: 'mod', roomId: 'r1', meetingId: 'meet1', role: 'moderator' }],
    ['ann', { participantId: 'ann', roomId: 'r1', meetingId: 'meet1', role: 'participant' }],
    ['bob', { participantId: 'bob', roomId: 'r1', meetingId: 'meet1', role: 'participant' }],
  ]);
  const state: { locks: LockSettings } = { locks: unlocked };
  const delivered: { to: string; message: ServerMessage }[] = [];
  const context: MediaContext = {
    peer: (id) => peers.get(id) ?? null,
    locks: () => state.locks,
    speaking: () => undefined,
    deliver: (to, message) => (delivered.push({ to, message }), true),
  };
  const warnings: unknown[] = [];
  const rooms = new NotingRooms(testRoomOptions(janus, (obj) => warnings.push(obj)));
  const backend = new JanusBackend(context, {
    rooms,
    log: { warn: (obj) => warnings.push(obj) },
  });
  t.teardown(() => backend.close());
  // The test's own view of Janus, through a session of its own (made again after Janus restarts).
  let session = await JanusSession.create(janus.endpoint);
  let look = await VideoRoomHandle.attach(session, janus.roomAdminKey);
  t.teardown(() => session.destroy());
  const inRoom = async () => (await look.participants('m-meet1').catch(() => [])).map((p) => p.id).sort();

  t.equal(backend.kindFor('meet1'), 'janus');
  for (const id of ['mod', 'ann', 'bob']) backend.connected(peers.get(id)!);
  await until('all three to be in the room', async () => (await inRoom()).join() === 'ann,bob,mod', 5000, 50);

  t.match(
    backend.relaySignal('ann', 'bob', { description: { type: 'offer', sdp: offer('sendonly', 'sendonly') } }),
    { ok: false, code: 'invalid_signal' },
    'no signal between participants: media goes through the server',
  );
  t.match(backend.relaySignal('eve', 'sfu:publish', { candidate: null }), { ok: false, code: 'not_member' });
  t.match(
    backend.relaySignal('ann', 'sfu:publish', { description: { type: 'answer', sdp: offer('sendonly', 'sendonly') } }),
    { ok: false, code: 'invalid_signal' },
    'sfu:publish takes offers',
  );
  t.match(backend.relaySignal('ann', 'sfu:publish', { extra: 1 }), { ok: false, code: 'invalid_signal' });

  t.same(
    backend.relaySignal('ann', 'sfu:publish', { description: { type: 'offer', sdp: offer('sendonly', 'sendonly') } }),
    { ok: true },
  );
  await until(
    'ann to get her answer',
    async () => delivered.some((d) => d.to === 'ann' && d.message.type === 'signal'),
    5000,
    50,
  );
  const answer = delivered.find((d) => d.to === 'ann' && d.message.type === 'signal')?.message;
  t.match(
    answer,
    { type: 'signal', from: 'sfu:publish', data: { description: { type: 'answer', sdp: /m=audio/ } } },
    "Janus's answer, relayed",
  );
  t.same(
    backend.relaySignal('ann', 'sfu:publish', {
      candidate: { candidate: 'candidate:1 1 udp 2122260223 192.0.2.10 54321 typ host', sdpMid: '0', sdpMLineIndex: 0 },
    }),
    { ok: true },
  );
  t.same(backend.relaySignal('ann', 'sfu:publish', { candidate: null }), { ok: true }, 'end of candidates');

  state.locks = { mic: true, cam: false, camsModeratorsOnly: false };
  t.match(
    backend.relaySignal('ann', 'sfu:publish', { description: { type: 'offer', sdp: offer('sendonly', 'sendonly') } }),
    { ok: false, code: 'locked' },
    'a forbidden offer is refused',
  );
  t.same(
    backend.relaySignal('mod', 'sfu:publish', { description: { type: 'offer', sdp: offer('sendonly', 'sendonly') } }),
    { ok: true },
    'moderators are never locked',
  );
  backend.locksChanged('meet1', state.locks);
  await until('ann to be muted in Janus', async () => rooms.moderated.length >= 4, 5000, 50);
  t.same(
    rooms.moderated.sort(),
    ['ann 0 muted', 'ann 1 forwarded', 'mod 0 forwarded', 'mod 1 forwarded'],
    "Janus stops forwarding ann's audio, not the moderator's",
  );
  rooms.moderated.length = 0;
  state.locks = unlocked;
  backend.locksChanged('meet1', state.locks);
  await until('the lock to be released', async () => rooms.moderated.length >= 4, 5000, 50);
  t.same(
    rooms.moderated.filter((m) => m.startsWith('ann')).sort(),
    ['ann 0 forwarded', 'ann 1 forwarded'],
    'a released lock lets her be heard again',
  );
  t.same(warnings, [], 'Janus accepted every request');

  // Bob's socket is replaced, then closes and opens again: he is in the room once, not kicked by his own leave.
  backend.connected(peers.get('bob')!);
  backend.disconnected(peers.get('bob')!);
  backend.connected(peers.get('bob')!);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await until('bob to be back', async () => (await inRoom()).join() === 'ann,bob,mod', 5000, 50);

  backend.disconnected(peers.get('ann')!);
  await until('ann to be kicked', async () => (await inRoom()).join() === 'bob,mod', 5000, 50);
  t.match(
    backend.relaySignal('ann', 'sfu:publish', { candidate: null }),
    { ok: false, code: 'not_member' },
    'gone is gone',
  );

  // Janus dies: it comes back, the room is made again and the members still connected join again.
  const before = delivered.length;
  const oldPid = janus.pid;
  process.kill(oldPid ?? 0, 'SIGKILL');
  await until('janus to be up again', async () => janus.pid !== oldPid && janus.state === 'up', 10_000, 50);
  session = await JanusSession.create(janus.endpoint);
  look = await VideoRoomHandle.attach(session, janus.roomAdminKey);
  await until('the room and its members to be back', async () => (await inRoom()).join() === 'bob,mod', 30_000, 100);
  t.ok(
    delivered
      .slice(before)
      .some((d) => d.to === 'bob' && d.message.type === 'signal' && d.message.from === 'sfu:publish'),
    'bob is told to offer again',
  );

  backend.meetingEnded('meet1');
  await until('the room to be destroyed', async () => !(await look.exists('m-meet1')), 5000, 50);
  t.pass('the meeting ended and its room is gone');
});
