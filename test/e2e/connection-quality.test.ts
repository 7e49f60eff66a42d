// Issue 31 point 12, the connection-quality indicator on a really poor connection, in Chromium: the
// page is in a mesh meeting with a werift peer (a participant from Node with a real WebRTC stack)
// whose microphone's RTP, while the test makes the line poor, skips one sequence number in five, as
// a lossy network would drop them. Nothing in the page is stubbed: its own statistics (inbound
// packets lost) turn the indicator to "Connection: poor", said in the live region, and back to
// "Connection: good" once nothing is lost. (Forcing the meeting's media through a TURN relay and a
// delaying proxy is not possible: neither the page nor the settings can make the mesh relay-only,
// and Chromium in a loopback-only namespace gathers no candidate at all, not even a relay.)
// Then a long round trip: the werift peer holds each RTCP receiver report it sends about the page's
// microphone for 700 ms after stamping it (werift's own receiverReportDelay), so the round-trip time
// the page computes from those reports (remote-inbound-rtp roundTripTime, RFC 3550 LSR/DLSR) grows
// past the "poor" limit of 400 ms with nothing lost; and recovers once the reports are prompt.
// One daemon, one Chromium, one werift peer; the thresholds are tested in test/unit/web/state/signals.test.ts.
import t from 'tap';
import { RTCPeerConnection, RtpHeader, RtpPacket, useOPUS, useVP8, type RTCRtpSender } from 'werift';
import type { SignalData } from '../../src/protocol/live.js';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inPrivateNetwork, openBrowser } from '../helpers/browser.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../helpers/in-process-daemon.js';
import { connectLive, textOf, type LiveClient } from '../helpers/live.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';
import { until } from '../helpers/net.js';

const room = 'quality';

/**
 * A participant whose media is werift's: it answers the page's offers, and once connected sends
 * Opus-sized audio every 20 ms; while `lossy`, one sequence number in five is skipped (20 % lost).
 */
class WeriftPeer {
  readonly pc = new RTCPeerConnection({
    iceServers: [],
    iceUseIpv6: false,
    bundlePolicy: 'max-bundle',
    codecs: { audio: [useOPUS()], video: [useVP8()] },
  });
  lossy = false;
  private sender: RTCRtpSender | null = null;
  private readonly early: unknown[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(readonly live: LiveClient) {
    live.socket.on('message', (raw) => {
      const message = JSON.parse(textOf(raw)) as { type: string; from?: string; data?: SignalData };
      if (message.type === 'signal' && message.from && message.data)
        void this.signal(message.from, message.data).catch((err: unknown) => console.error('werift peer:', err));
    });
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') this.start();
    });
  }

  private async signal(from: string, data: SignalData): Promise<void> {
    if ('candidate' in data) {
      if (this.pc.remoteDescription) await this.pc.addIceCandidate(data.candidate as never);
      else this.early.push(data.candidate);
      return;
    }
    if (data.description.type !== 'offer') return;
    await this.pc.setRemoteDescription(data.description);
    for (const candidate of this.early.splice(0)) await this.pc.addIceCandidate(candidate as never);
    const audio = this.pc.getTransceivers().find((tr) => tr.kind === 'audio');
    if (audio) {
      audio.setDirection('sendrecv');
      this.sender = audio.sender;
    }
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    if (this.pc.iceGatheringState !== 'complete')
      await this.pc.iceGatheringStateChange.watch((state) => state === 'complete');
    const sdp = this.pc.localDescription?.sdp ?? '';
    this.live.send({ type: 'signal', to: from, data: { description: { type: 'answer', sdp } } });
  }

  private start(): void {
    if (this.timer) return;
    const payload = Buffer.alloc(80, 0x5a);
    let seq = 0;
    let n = 0;
    this.timer = setInterval(() => {
      n += 1;
      seq = (seq + (this.lossy && n % 4 === 0 ? 2 : 1)) & 0xffff;
      const packet = new RtpPacket(new RtpHeader({ sequenceNumber: seq, timestamp: (n * 960) >>> 0 }), payload);
      void this.sender?.sendRtp(packet).catch(() => undefined);
    }, 20);
  }

  /** Holds every receiver report it sends this long after stamping it (0: prompt), as a slow path would. */
  set reportDelayMs(ms: number) {
    this.pc.config.debug.receiverReportDelay = ms;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.pc.close().catch(() => undefined);
    this.live.socket.close();
  }
}

async function linkFor(d: InProcessDaemon, role: 'moderator' | 'participant', name: string): Promise<string> {
  const link = await call(d, `/api/rooms/${room}/links`, { method: 'POST', json: { role, name } });
  return `${d.url}${link.body.url}`;
}

t.setTimeout(90_000);

if (!inPrivateNetwork(t, import.meta.url)) {
  t.test('the page judges a lossy connection poor from its own statistics, says so, and recovers', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: room, name: 'Quality', waiting_room: 'off' });
    const knock = await call(d, `/room/${room}/knock`, { method: 'POST', json: { name: 'Far Away', note: '' } });
    const { client } = await connectLive(d, room, knock.body.session as string);
    const peer = new WeriftPeer(client);
    t.teardown(() => peer.close());

    const browser = await openBrowser(t);
    const { page } = await browser.newPage('teacher');
    page.setDefaultTimeout(30_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(await linkFor(d, 'moderator', 'Ms Keller'));
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('button', { name: 'Mute microphone' }).waitFor();

    const quality = page.getByRole('region', { name: 'Meeting' }).getByText(/^Connection: /);
    await until('the first judgement', async () => (await quality.textContent()) === 'Connection: good', 20_000, 100);
    t.pass('"Connection: good" while nothing is lost');

    let mark = await saidCount(page);
    peer.lossy = true;
    await until('a poor connection', async () => (await quality.textContent()) === 'Connection: poor', 15_000, 100);
    t.ok(await quality.isVisible(), '"Connection: poor" is shown once a fifth of the packets she receives are lost');
    await untilSaid(page, 'Connection: poor', { since: mark, exact: true, ms: 5000 });
    t.pass('and said in the live region');
    await browser.checkAccessibility(page, 'the meeting on a poor connection');
    await browser.screenshot(page, 'quality-poor-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    t.ok(await quality.isVisible(), 'shown on a phone too');
    await browser.screenshot(page, 'quality-poor-phone');

    // A later announcement may replace the recovery's before a poll of the region sees it: the kept ones count.
    mark = await saidCount(page);
    peer.lossy = false;
    // The first judgement after the change may straddle it ("fair"): the recovery from poor is said in either word.
    await untilSaid(page, /^Connection: (fair|good)$/, { since: mark, ms: 30_000 });
    t.pass('the recovery from poor is said');
    await until('the recovery', async () => (await quality.textContent()) === 'Connection: good', 15_000, 100);
    t.pass('back to "Connection: good" once nothing is lost');

    // A long round trip, nothing lost: the reports about her microphone come back 700 ms late.
    mark = await saidCount(page);
    peer.reportDelayMs = 700;
    await until(
      'a poor connection from the round trip',
      async () => (await quality.textContent()) === 'Connection: poor',
      20_000,
      100,
    );
    t.pass('"Connection: poor" once the round trip is long, with no packet lost');
    await untilSaid(page, 'Connection: poor', { since: mark, exact: true, ms: 5000 });
    t.pass('and said in the live region');
    peer.reportDelayMs = 0;
    // The synthetic peer answers from this test's process, beside the daemon: on a loaded CI machine its own lag
    // adds to the round trip for a while (once 20 s were not enough), so the wait is long; what it saw last is told.
    await until('the recovery', async () => (await quality.textContent()) === 'Connection: good', 45_000, 100).catch(
      async (err: Error) => {
        throw new Error(`${err.message}; the page still says "${await quality.textContent()}"`);
      },
    );
    t.pass('back to "Connection: good" once the reports are prompt');
  });
}
