import t from 'tap';
import { unlocked, type LockSettings } from '../../../src/engine/live/meeting-locks.js';
import type { ServerMessage } from '../../../src/protocol/live.js';
import type { MediaContext, MediaPeer } from '../../../src/engine/live/media-port.js';
import { MeshSignallingRelay } from '../../../src/media/mesh-relay.js';
import { canonicalSignal } from '../../../src/media/signal-data.js';
import { audioOnlyOffer, chromeSdp, recvonlyOffer, sendrecvOffer, videoOnlyOffer } from './sdp-samples.js';

function setup(locks: LockSettings = unlocked) {
  const peers = new Map<string, MediaPeer>([
    ['mod', { participantId: 'mod', roomId: 'r1', meetingId: 'm1', role: 'moderator' }],
    ['ann', { participantId: 'ann', roomId: 'r1', meetingId: 'm1', role: 'participant' }],
    ['bob', { participantId: 'bob', roomId: 'r1', meetingId: 'm1', role: 'participant' }],
    ['eve', { participantId: 'eve', roomId: 'r2', meetingId: 'm2', role: 'participant' }],
    ['old', { participantId: 'old', roomId: 'r1', meetingId: 'm0', role: 'participant' }],
  ]);
  const delivered: { to: string; message: ServerMessage }[] = [];
  const offline = new Set<string>();
  const state = { locks };
  const context: MediaContext = {
    peer: (id) => peers.get(id) ?? null,
    locks: () => state.locks,
    speaking: () => undefined,
    deliver: (to, message) => {
      if (offline.has(to)) return false;
      delivered.push({ to, message });
      return true;
    },
  };
  return { relay: new MeshSignallingRelay(context), delivered, offline, state };
}

const offer = (sdp: string, type = 'offer') => ({ description: { type, sdp } });

t.test('relays between two members of the same meeting and room, as sent', async (t) => {
  const { relay, delivered } = setup();
  t.equal(relay.name, 'mesh');
  t.same(relay.relaySignal('ann', 'bob', offer(sendrecvOffer)), { ok: true });
  t.same(delivered, [{ to: 'bob', message: { type: 'signal', from: 'ann', data: offer(sendrecvOffer) } }]);
  t.same(relay.relaySignal('bob', 'ann', offer(sendrecvOffer, 'answer')), { ok: true });
  t.same(relay.relaySignal('bob', 'ann', { description: { type: 'rollback' } }), { ok: true });
  t.same(delivered.at(-1)?.message, { type: 'signal', from: 'bob', data: { description: { type: 'rollback' } } });
});

t.test('never to or from anyone else', async (t) => {
  const { relay, delivered, offline } = setup();
  for (const [from, to, why] of [
    ['ann', 'eve', 'another room'],
    ['eve', 'ann', 'from another room'],
    ['ann', 'old', 'another meeting of the same room'],
    ['ghost', 'ann', 'unknown sender'],
    ['ann', 'ghost', 'unknown receiver'],
    ['ann', 'ann', 'to oneself'],
  ] as const) {
    t.match(relay.relaySignal(from, to, offer(recvonlyOffer)), { ok: false, code: 'not_member' }, why);
  }
  offline.add('bob');
  t.match(
    relay.relaySignal('ann', 'bob', offer(recvonlyOffer)),
    { ok: false, code: 'not_member' },
    'receiver without a connection',
  );
  t.same(delivered, []);
});

t.test('locks are enforced on offers, answers and provisional answers of participants', async (t) => {
  const { relay, delivered, state } = setup({ mic: true, cam: false, camsModeratorsOnly: false });
  for (const type of ['offer', 'answer', 'pranswer']) {
    t.match(
      relay.relaySignal('ann', 'bob', offer(sendrecvOffer, type)),
      { ok: false, code: 'locked' },
      `${type} with audio under a mic lock`,
    );
    t.match(relay.relaySignal('ann', 'bob', offer(audioOnlyOffer, type)), { ok: false, code: 'locked' });
  }
  t.same(relay.relaySignal('ann', 'bob', offer(videoOnlyOffer)), { ok: true }, 'video only passes');
  t.same(relay.relaySignal('ann', 'bob', offer(recvonlyOffer)), { ok: true }, 'recvonly passes');
  t.same(relay.relaySignal('mod', 'bob', offer(sendrecvOffer)), { ok: true }, 'a moderator is never locked');
  const port0 = chromeSdp([
    { kind: 'audio', direction: 'sendrecv', port: 0 },
    { kind: 'video', direction: 'recvonly' },
  ]);
  t.same(relay.relaySignal('ann', 'bob', offer(port0)), { ok: true }, 'a rejected audio section sends nothing');

  state.locks = { mic: false, cam: true, camsModeratorsOnly: false };
  t.match(relay.relaySignal('ann', 'bob', offer(videoOnlyOffer)), { ok: false, code: 'locked', message: /camera/ });
  t.same(relay.relaySignal('ann', 'bob', offer(audioOnlyOffer)), { ok: true });
  state.locks = { mic: false, cam: false, camsModeratorsOnly: true };
  t.match(
    relay.relaySignal('bob', 'ann', offer(sendrecvOffer, 'answer')),
    { ok: false, code: 'locked' },
    'cameras for moderators only',
  );
  t.same(relay.relaySignal('mod', 'ann', offer(sendrecvOffer)), { ok: true });
  t.same(
    relay.relaySignal('ann', 'bob', {
      candidate: { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host', sdpMid: '0' },
    }),
    { ok: true },
    'candidates carry no media',
  );
  t.equal(
    delivered.filter((d) => d.to === 'bob' && 'description' in (d.message as { data: object }).data).length,
    5,
    'exactly the five that passed',
  );
});

t.test('anything but a description or a candidate is refused, and extras never pass', async (t) => {
  const { relay, delivered } = setup();
  for (const data of [
    null,
    'offer',
    [],
    {},
    { description: { type: 'offer', sdp: recvonlyOffer }, candidate: null },
    { description: { type: 'offer' } },
    { description: { type: 'offer', sdp: '' } },
    { description: { type: 'offer', sdp: 'x'.repeat(60_001) } },
    { description: { type: 'bogus', sdp: recvonlyOffer } },
    { description: 'v=0' },
    { candidate: 'candidate:1' },
    { candidate: { candidate: 1 } },
    { candidate: { candidate: 'x'.repeat(2001) } },
    { candidate: { candidate: 'c', sdpMLineIndex: '0' } },
    { other: 1 },
    { description: { type: 'offer', sdp: recvonlyOffer.replace('\r\n', '\r') } },
  ]) {
    t.match(
      relay.relaySignal('ann', 'bob', data),
      { ok: false, code: 'invalid_signal' },
      JSON.stringify(data)?.slice(0, 60),
    );
  }
  t.same(delivered, []);
  t.same(relay.relaySignal('ann', 'bob', { description: { type: 'offer', sdp: recvonlyOffer, extra: '<script>' } }), {
    ok: true,
  });
  t.same(
    relay.relaySignal('ann', 'bob', {
      candidate: { candidate: 'c', sdpMid: null, sdpMLineIndex: 0, usernameFragment: 'u', evil: true },
    }),
    { ok: true },
  );
  t.same(relay.relaySignal('ann', 'bob', { candidate: null }), { ok: true });
  t.same(
    delivered.map((d) => (d.message as { data: unknown }).data),
    [
      { description: { type: 'offer', sdp: recvonlyOffer } },
      { candidate: { candidate: 'c', sdpMid: null, sdpMLineIndex: 0, usernameFragment: 'u' } },
      { candidate: null },
    ],
    'rebuilt from known fields only',
  );
  t.same(
    canonicalSignal({ candidate: { candidate: '' } }),
    { candidate: { candidate: '' } },
    'an empty candidate ends the candidates',
  );
});

t.test('lifecycle calls are no-ops for the mesh', async (t) => {
  const { relay } = setup();
  const peer: MediaPeer = { participantId: 'ann', roomId: 'r1', meetingId: 'm1', role: 'participant' };
  t.doesNotThrow(() => {
    relay.connected(peer);
    relay.disconnected(peer);
    relay.locksChanged('m1', unlocked);
    relay.meetingEnded('m1');
  });
});
