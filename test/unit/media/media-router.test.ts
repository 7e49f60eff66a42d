import t from 'tap';
import { unlocked } from '../../../src/engine/live/meeting-locks.js';
import type { MediaBackend, MediaPeer } from '../../../src/engine/live/media-port.js';
import { MediaRouter } from '../../../src/media/media-router.js';

function recording(name: string, calls: string[]): MediaBackend {
  return {
    name,
    kindFor: () => (name === 'sfu' ? 'janus' : 'mesh'),
    relaySignal: (from) => (calls.push(`${name} signal ${from}`), { ok: true }),
    connected: (peer) => void calls.push(`${name} connected ${peer.participantId}`),
    disconnected: (peer) => void calls.push(`${name} disconnected ${peer.participantId}`),
    locksChanged: (meetingId) => void calls.push(`${name} locks ${meetingId}`),
    meetingEnded: (meetingId) => void calls.push(`${name} ended ${meetingId}`),
  };
}

const peer = (participantId: string, meetingId: string): MediaPeer => ({
  participantId,
  meetingId,
  roomId: 'r',
  role: 'participant',
});

t.test('a meeting keeps the backend it started with', async (t) => {
  const calls: string[] = [];
  let sfuUp = true;
  const meetingOf: Record<string, string> = { ann: 'm1', bob: 'm2' };
  const router = new MediaRouter(
    recording('mesh', calls),
    recording('sfu', calls),
    () => sfuUp,
    (id) => meetingOf[id] ?? null,
  );
  router.connected(peer('ann', 'm1'));
  t.equal(router.kindFor('m1'), 'janus', 'Janus is up: the meeting goes through it');
  sfuUp = false;
  t.equal(router.kindFor('m2'), 'mesh', 'Janus is restarting: a meeting starting now runs on the mesh');
  router.connected(peer('bob', 'm2'));
  t.equal(router.kindFor('m1'), 'janus', 'the first meeting keeps Janus');
  sfuUp = true;
  t.equal(router.kindFor('m2'), 'mesh', 'and the second keeps the mesh');
  router.relaySignal('ann', 'sfu:publish', {});
  router.relaySignal('bob', 'ann', {});
  t.match(router.relaySignal('eve', 'ann', {}), { ok: false, code: 'not_member' });
  router.locksChanged('m2', unlocked);
  router.meetingEnded('m2');
  t.equal(router.kindFor('m2'), 'janus', 'an ended meeting forgets; a new one with the same id is decided again');
  t.same(calls, [
    'sfu connected ann',
    'mesh connected bob',
    'sfu signal ann',
    'mesh signal bob',
    'mesh locks m2',
    'mesh ended m2',
  ]);
});
