// Issue 28 point 11: a participant cannot make Janus send STUN to an address she names on
// loopback, link-local or (unless SERVICE_MEDIA_PRIVATE_PEERS=true) private ranges. A spawned
// daemon uses a real Janus as an external one (SERVICE_JANUS_URL) through a TCP proxy of this
// test that keeps every byte the daemon sends Janus; a participant offers to sfu:publish with
// candidates of every kind, in the offer and trickled, and the test reads what reached Janus.
import { connect, createServer } from 'node:net';
import t, { type Test } from 'tap';
import { janusFor } from '../../../helpers/janus.js';
import { janusMediaSkip, janusMeeting, RewritingPublisher } from '../../../helpers/janus-peers.js';
import { until } from '../../../helpers/net.js';

/** A TCP proxy to `target` keeping what clients send it, as text. */
async function recordingProxy(t: Test, target: string): Promise<{ url: string; sent: () => string }> {
  const { hostname, port } = new URL(target);
  let sent = '';
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    client.on('data', (chunk: Buffer) => (sent += chunk.toString('utf8')));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  const local = typeof address === 'object' && address ? address.port : 0;
  return { url: target.replace(`${hostname}:${port}`, `127.0.0.1:${local}`), sent: () => sent };
}

const addresses = {
  never: ['127.0.0.1', '169.254.7.7', '0.0.0.0', '::1', 'fe80::1', '4f1e2d3c-1234-5678-9abc-def012345678.local'],
  private: ['10.1.2.3', '172.20.0.4', '192.168.7.8', '100.64.9.9', 'fd00::9'],
  public: ['198.51.100.7', '2001:db8::7'],
};
const all = [...addresses.never, ...addresses.private, ...addresses.public];
/** Each candidate's address and port, as Janus would read it (ports tell offered from trickled). */
const token = (address: string, port: number) => `${address} ${port} typ host`;
const candidate = (address: string, port: number) =>
  `candidate:${port} 1 udp ${2122260223 - port} ${token(address, port)}`;

t.test(
  'remote candidates on loopback, link-local, names and private ranges never reach Janus',
  { skip: janusMediaSkip },
  async (t) => {
    const { janus } = await janusFor(t, 45_600);
    const proxy = await recordingProxy(t, janus.endpoint.url);
    for (const privatePeers of [false, true]) {
      const meeting = await janusMeeting(t, '45800-45899', {
        SERVICE_JANUS_URL: proxy.url,
        SERVICE_JANUS_API_SECRET: janus.endpoint.apiSecret,
        SERVICE_JANUS_ROOM_ADMIN_KEY: janus.roomAdminKey,
        ...(privatePeers ? { SERVICE_MEDIA_PRIVATE_PEERS: 'true' } : {}),
      });
      const base = privatePeers ? 52_000 : 50_000;
      const publisher = new RewritingPublisher(await meeting.connect(await meeting.pupil('Prober')));
      t.teardown(() => publisher.close());
      const offered = all.map((address, i) => `a=${candidate(address, base + i)}\r\n`).join('');
      const outcome = await publisher.offer(
        (sdp) =>
          sdp
            .replace(/^a=candidate:.*\r\n/gm, '')
            .replace(/^a=end-of-candidates\r\n/m, offered)
            .replace(/^a=end-of-candidates\r\n/gm, ''),
        15_000,
        false,
      );
      t.ok('answer' in outcome, `Janus answered the offer (${'error' in outcome ? outcome.error : 'ok'})`);
      all.forEach((address, i) => {
        publisher.live.send({
          type: 'signal',
          to: 'sfu:publish',
          data: { candidate: { candidate: candidate(address, base + 500 + i), sdpMid: '0', sdpMLineIndex: 0 } },
        });
      });
      publisher.live.send({ type: 'signal', to: 'sfu:publish', data: { candidate: null } });
      // The last public candidate trickled reaches Janus: what came before it has been sent too.
      const last = all.indexOf(addresses.public.at(-1)!);
      await until(
        'the trickled public candidates to reach Janus',
        async () => proxy.sent().includes(token(all[last]!, base + 500 + last)),
        10_000,
        50,
      );
      const reached = (address: string) => {
        const i = all.indexOf(address);
        return [proxy.sent().includes(token(address, base + i)), proxy.sent().includes(token(address, base + 500 + i))];
      };
      const label = privatePeers ? 'SERVICE_MEDIA_PRIVATE_PEERS=true' : 'by default';
      for (const address of addresses.never)
        t.same(reached(address), [false, false], `${address}: neither offered nor trickled to Janus (${label})`);
      for (const address of addresses.private)
        t.same(
          reached(address),
          [privatePeers, privatePeers],
          `${address}: ${privatePeers ? 'reaches' : 'does not reach'} Janus (${label})`,
        );
      for (const address of addresses.public)
        t.same(reached(address), [true, true], `${address}: reaches Janus, offered and trickled (${label})`);
      t.same(
        publisher.live.received.filter((m) => m.type === 'error'),
        [],
        'dropped without an error',
      );
      await publisher.close();
    }
  },
);
