// Issue 35 point 6 (owner death, its Janus alive): a node holding a meeting dies; its room and its
// members' handles stay in Janus. The node that takes the meeting over finds it placed on a live
// server with the room's secret and pin kept by the placement: it uses the room the dead node
// made (Janus says it exists) and removes her stale handle's id before she joins again, so her
// page's new offer is answered and she publishes again, once, in the same room, on the same
// reservation. The dead node is played by a backend whose Janus connection goes through a proxy
// that is then killed: it never says goodbye to Janus.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t from 'tap';
import { RTCPeerConnection, useOPUS, useVP8 } from 'werift';
import { MediaPlacement } from '../../../../src/engine/cluster/media-servers.js';
import { unlocked } from '../../../../src/engine/live/meeting-locks.js';
import type { MediaContext, MediaPeer } from '../../../../src/engine/live/media-port.js';
import { JanusBackend } from '../../../../src/media/janus/janus-backend.js';
import { placedJanus } from '../../../../src/media/janus/janus-pool.js';
import { JanusRooms } from '../../../../src/media/janus/janus-rooms.js';
import { JanusSession } from '../../../../src/media/janus/janus-session.js';
import { VideoRoomHandle } from '../../../../src/media/janus/videoroom.js';
import type { ServerMessage } from '../../../../src/protocol/live.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { janusFor } from '../../../helpers/janus.js';
import { janusMediaSkip } from '../../../helpers/janus-peers.js';
import { MemoryMediaServers } from '../../../helpers/memory-media-servers.js';
import { until } from '../../../helpers/net.js';

const secrets = { apiSecret: 'takeover-api-secret-0123', roomAdminKey: 'takeover-admin-key-01234' };
const peerConfig = {
  iceServers: [],
  iceUseIpv6: false,
  bundlePolicy: 'max-bundle' as const,
  codecs: { audio: [useOPUS()], video: [useVP8()] },
};

/** An HTTP proxy to Janus that can die: every connection cut, none accepted after. */
async function dyingProxy(target: string): Promise<{ url: string; kill(): void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = req.method === 'POST' ? Buffer.concat(chunks) : undefined;
      fetch(target + (req.url ?? '').replace(/^\/janus/, ''), {
        method: req.method ?? 'GET',
        body,
        headers: { 'content-type': 'application/json' },
      })
        .then(async (answer) =>
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
        )
        .catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/janus`,
    kill() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

t.test('a node takes over a meeting whose owner died while its Janus lives', { skip: janusMediaSkip }, async (t) => {
  const { janus } = await janusFor(t, 45_000, secrets);
  const url = janus.endpoint.url;
  const store = new MemoryMediaServers();
  await store.register([url]);
  const placement = new MediaPlacement(store, Math.random, new FakeClock());
  const pool = placedJanus([url], secrets.apiSecret, () => Promise.resolve(placement));
  const proxy = await dyingProxy(url);
  const ann: MediaPeer = { participantId: 'ann', roomId: 'r1', meetingId: 'takeover1', role: 'participant' };
  const node = (endpoint: string | null) => {
    const delivered: ServerMessage[] = [];
    const context: MediaContext = {
      peer: (id) => (id === 'ann' ? ann : null),
      locks: () => unlocked,
      speaking: () => undefined,
      deliver: (_to, message) => (delivered.push(message), true),
    };
    let n = 0;
    const rooms = new JanusRooms({
      pool: endpoint ? { ...pool, endpoint: () => ({ url: endpoint, apiSecret: secrets.apiSecret }) } : pool,
      adminKey: secrets.roomAdminKey,
      publishers: 10,
      randomText: () => `${endpoint ? 'dead' : 'new'}-node-random-${n++}`,
      log: { warn: () => undefined },
    });
    const backend = new JanusBackend(context, { rooms, log: { warn: () => undefined } });
    t.teardown(() => backend.close());
    return { backend, delivered };
  };
  /** Her page offers a camera through `via`; resolves once Janus's answer is applied and the connection is up. */
  const publish = async (via: ReturnType<typeof node>) => {
    const pc = new RTCPeerConnection(peerConfig);
    t.teardown(() => pc.close());
    pc.addTransceiver('video', { direction: 'sendonly' });
    pc.addTransceiver('audio', { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((s) => s === 'complete');
    const from = via.delivered.length;
    t.same(
      via.backend.relaySignal('ann', 'sfu:publish', { description: { type: 'offer', sdp: pc.localDescription?.sdp } }),
      { ok: true },
    );
    let answer: string | null = null;
    await until(
      'Janus’s answer to her offer',
      async () => {
        for (const m of via.delivered.slice(from)) {
          if (m.type === 'error') throw new Error(`the server refused: ${m.message}`);
          if (m.type === 'signal' && 'description' in m.data && m.data.description.type === 'answer')
            answer = m.data.description.sdp ?? '';
        }
        return answer !== null;
      },
      10_000,
      50,
    );
    await pc.setRemoteDescription({ type: 'answer', sdp: answer! });
    await until('her connection to Janus', async () => pc.connectionState === 'connected', 10_000, 50);
  };
  const session = await JanusSession.create(janus.endpoint);
  t.teardown(() => session.destroy());
  const look = await VideoRoomHandle.attach(session, janus.roomAdminKey);
  const inRoom = async () => look.participants('m-takeover1').catch(() => []);

  const dying = node(proxy.url);
  dying.backend.connected(ann);
  await publish(dying);
  t.same(await inRoom(), [{ id: 'ann', publisher: true }], 'she publishes through the first node');

  proxy.kill();
  const taking = node(null);
  taking.backend.connected(ann);
  await publish(taking);
  t.same(await inRoom(), [{ id: 'ann', publisher: true }], 'she publishes again, once, in the same room');
  t.same(
    (await store.servers()).map((s) => s.load),
    [1],
    'the meeting kept its one reservation',
  );
  t.notOk(
    taking.delivered.some((m) => m.type === 'error'),
    'no error reached her page',
  );

  // A node that served none of its media ends it (its owner died before anyone came back): the reservation goes.
  node(null).backend.meetingEnded('takeover1');
  await until('the reservation to be released', async () => (await store.servers())[0]?.load === 0, 5000, 20);
  t.equal(await store.serverOf('takeover1'), null, 'the meeting is placed nowhere');
});
