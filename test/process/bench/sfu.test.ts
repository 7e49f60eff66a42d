// The bench's `sfu` scenario drives real WebRTC: a werift publisher's synthetic camera reaches a
// werift subscriber through the daemon's own Janus, both entering and signalling as the page
// does. No timing is asserted; the point is that the synthetic peers are real (packets arrive).
import { networkInterfaces } from 'node:os';
import t from 'tap';
import { sfuDaemonEnv, sfuScenario, sfuTable, slope } from '../../../bench/lib/sfu.js';
import { RtpCount, vp8Frame } from '../../../bench/lib/synthetic-peer.js';
import { daemonFor } from '../../helpers/api.js';
import { janusMissing } from '../../helpers/janus.js';

// Janus 1.1.2 gathers no loopback candidates: media needs an interface with an address.
const hasAddress = Object.values(networkInterfaces()).some((list) =>
  list?.some((a) => a.family === 'IPv4' && !a.internal),
);
const skip = janusMissing ?? (hasAddress ? false : 'no non-loopback IPv4 interface for Janus to gather candidates on');

t.test('one werift subscriber receives the werift publisher through the daemon’s Janus', { skip }, async (t) => {
  const d = await daemonFor(t, { env: { ...sfuDaemonEnv, SERVICE_RTP_PORTS: '44000-44199' } });
  const lines: string[] = [];
  const f = await sfuScenario(
    { url: d.url, adminToken: d.adminToken, pid: d.child.pid! },
    { steps: [1], windowSec: 2, settleSec: 0, log: (m) => lines.push(m) },
  );
  t.comment(sfuTable(f));
  t.equal(f.steps.length, 1, `the step was measured (${f.stoppedBecause}; ${lines.join(' / ')})`);
  const step = f.steps[0]!;
  t.ok(step.sentVideoPps > 20, `the publisher sent video (${step.sentVideoPps.toFixed(0)} packets/s)`);
  t.ok(
    step.videoPpsPerSubscriber > 10,
    `the subscriber received it through Janus (${step.videoPpsPerSubscriber.toFixed(0)} packets/s)`,
  );
  t.ok(step.audioLossPct !== null, 'and the audio');
  t.ok(step.janusCpuPct !== null && step.janusCpuPct > 0, 'the Janus the daemon started was found and measured');
});

t.test('VP8 packets are shaped as a browser packetises them', async (t) => {
  const noise = Buffer.alloc(20_000, 7);
  const key = vp8Frame(300, true, 5000, noise);
  t.equal(key.length, 5, '5,000 bytes go in five packets of at most 1,100 bytes of frame');
  t.ok(
    key.every((p) => p.length <= 1104),
    'each with a 4-byte payload descriptor',
  );
  t.equal(key[0]![0], 0x90, 'the first packet starts the partition (X and S bits)');
  t.equal(key[1]![0], 0x80, 'the others do not');
  t.equal(((key[0]![2]! & 0x7f) << 8) | key[0]![3]!, 300, 'the 15-bit picture id');
  t.equal(key[0]![4]! & 1, 0, 'a keyframe: the frame tag’s inter bit is clear');
  t.same([...key[0]!.subarray(7, 10)], [0x9d, 0x01, 0x2a], 'the keyframe start code Janus looks for');
  t.equal(vp8Frame(301, false, 800, noise)[0]![4]! & 1, 1, 'a delta frame has it set');
});

t.test('the RTP count tells lost packets across the 16-bit wrap', async (t) => {
  const count = new RtpCount();
  for (const seq of [65_533, 65_534, 65_535, 0, 2, 3, 1]) count.add(seq);
  t.same(count.snapshot(), { received: 7, expected: 7 }, 'a late packet fills its gap; the wrap goes on counting');
  count.add(10);
  t.same(count.snapshot(), { received: 8, expected: 14 }, '4 to 9 are missing');
});

t.test('what one more subscriber costs is the slope over the steps that held', async (t) => {
  const points = [
    [10, 12],
    [20, 20],
    [40, 36],
  ] as const;
  t.ok(Math.abs(slope(points)! - 0.8) < 1e-9, '0.8% of a core per subscriber');
  t.equal(slope([[10, 12]]), null, 'one step tells no slope');
});
