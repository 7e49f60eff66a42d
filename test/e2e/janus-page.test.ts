// The product page through the daemon's own Janus (SERVICE_MEDIA=janus): three people join one
// room, each sees and hears the two others through the SFU with two RTCPeerConnections whatever
// the count (not one per person as in the mesh), and when the moderator moves one of them out,
// her media in this meeting ends: her connections close and the others lose her tile and stream.
// A page modified to keep sending its microphone under a lock is heard by nobody: Janus stops
// forwarding it. Then the moderator removes one from the People list: within a second of the
// gesture her connections are closed and the others receive nothing more of her. It runs inside
// a network namespace the test makes, with a veth pair of private addresses (Janus gathers no
// loopback candidates), so no packet leaves the machine.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import {
  connectionCounts,
  countConnections,
  inboundTotal,
  inPrivateNetwork,
  openBrowser,
  withoutSpeakingReports,
} from '../helpers/browser.js';
import { janusMissing } from '../helpers/janus.js';
import { until } from '../helpers/net.js';
import { toneWav } from '../helpers/tone-wav.js';

t.setTimeout(300_000);

/** Whether the tile of `name` on `page` plays real frames: a size, and time that moves on. */
async function plays(page: Page, name: string): Promise<boolean> {
  const video = page.getByRole('listitem', { name, exact: true }).locator('video');
  if ((await video.count()) !== 1) return false;
  const first = await video.evaluate((v: HTMLVideoElement) => ({ width: v.videoWidth, time: v.currentTime }));
  if (first.width === 0) return false;
  await page.waitForTimeout(300);
  return (await video.evaluate((v: HTMLVideoElement) => v.currentTime)) > first.time;
}

/** Whether the tile of `name` on `page` has the speaking outline. */
const outlined = async (page: Page, name: string) =>
  ((await page.getByRole('listitem', { name, exact: true }).getAttribute('class')) ?? '')
    .split(/\s+/)
    .includes('speaking');

/** What a page's connections are doing, for a failure's message. */
function connectionsOf(page: Page): Promise<string> {
  return page.evaluate(() =>
    JSON.stringify(
      (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers.map((pc) => ({
        connection: pc.connectionState,
        ice: pc.iceConnectionState,
        signaling: pc.signalingState,
        msids: (pc.remoteDescription?.sdp ?? '')
          .split('\r\n')
          .filter((l) => l.startsWith('a=msid') || l.startsWith('m=') || l.startsWith('a=candidate')),
        transceivers: pc
          .getTransceivers()
          .map((tr) => `${tr.mid ?? '-'}:${tr.receiver.track.kind}:${tr.currentDirection ?? '-'}`),
      })),
    ),
  );
}

/** Remote video streams the page's open connections still receive (transceivers not stopped or inactive). */
function receivedVideos(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers
        .filter((pc) => pc.connectionState !== 'closed')
        .flatMap((pc) => pc.getTransceivers())
        .filter(
          (tr) =>
            tr.receiver.track.kind === 'video' &&
            (tr.currentDirection === 'recvonly' || tr.currentDirection === 'sendrecv'),
        ).length,
  );
}

if (!inPrivateNetwork(t, import.meta.url)) {
  // Janus 1.1.2 gathers no loopback candidates: media needs an interface with an address (the namespace's veth pair).
  const hasAddress = Object.values(networkInterfaces()).some((list) =>
    list?.some((a) => a.family === 'IPv4' && !a.internal),
  );
  const skip =
    janusMissing ?? (hasAddress ? false : 'no non-loopback IPv4 interface for Janus to gather candidates on');

  t.test(
    'three pages meet through Janus: everyone decodes the two others on two connections, a moved person leaves no stream behind',
    { skip },
    async (t) => {
      const d = await inProcessDaemonFor(t, dataDirFor(t), {
        SERVICE_MEDIA: 'janus',
        SERVICE_RTP_PORTS: '43700-43900',
      });
      await rooms.create(d, { room_id: 'lesson', name: 'Biology 2C', waiting_room: 'off' });
      // A continuous tone for every microphone (the default fake device only beeps once a second).
      const voice = join(mkdtempSync(join(tmpdir(), 'meet-voice-')), 'voice.wav');
      writeFileSync(voice, toneWav(440, 3));
      const browser = await openBrowser(t, [`--use-file-for-fake-audio-capture=${voice}`]);

      const enter = async (name: string, url: string, named: boolean): Promise<Page> => {
        const { page, context } = await browser.newPage(name);
        await countConnections(context);
        // No page tells the server it speaks: an outline can only come from the audio received through Janus.
        await withoutSpeakingReports(context);
        await page.goto(url);
        if (!named) await page.getByLabel('Your name').fill(name);
        await page.getByRole('button', { name: 'Join' }).click();
        await page.getByRole('button', { name: 'Mute microphone' }).waitFor({ timeout: 30_000 });
        return page;
      };
      const link = await call(d, '/api/rooms/lesson/links', {
        method: 'POST',
        json: { role: 'moderator', name: 'Teacher' },
      });
      const teacher = await enter('Teacher', `${d.url}${String(link.body.url)}`, true);
      const ann = await enter('Ann', `${d.url}/room/lesson`, false);
      const ben = await enter('Ben', `${d.url}/room/lesson`, false);
      const pages = { Teacher: teacher, Ann: ann, Ben: ben };

      for (const [me, page] of Object.entries(pages)) {
        for (const other of Object.keys(pages).filter((n) => n !== me)) {
          await until(`${me} to see ${other}'s video on her tile`, () => plays(page, other), 45_000, 250).catch(
            async (err: Error) => {
              throw new Error(`${err.message}; ${me}'s connections: ${await connectionsOf(page)}`);
            },
          );
        }
      }
      t.pass("each page plays the two others' video, each on the right tile");
      for (const [me, page] of Object.entries(pages)) {
        const audio = await page.evaluate(async () => {
          let packets = 0;
          for (const pc of (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers)
            (await pc.getStats()).forEach((s: { type: string; kind?: string; packetsReceived?: number }) => {
              if (s.type === 'inbound-rtp' && s.kind === 'audio') packets += s.packetsReceived ?? 0;
            });
          return packets;
        });
        t.ok(audio > 0, `${me} receives audio`);
        t.equal(
          (await connectionCounts(page)).peerConnections,
          2,
          `${me}'s page has two RTCPeerConnections (one to send, one to receive)`,
        );
      }
      t.equal(await receivedVideos(ann), 2, 'Ann receives two video streams on her one receiving connection');
      // Issue 31 point 12 on the SFU path: every page outlines the two others from what it receives.
      for (const [me, page] of Object.entries(pages))
        for (const other of Object.keys(pages).filter((n) => n !== me))
          await until(`${me} to outline ${other} speaking`, () => outlined(page, other), 20_000, 100);
      t.pass('each page outlines the two others as speaking, from the audio Janus forwards');

      // A microphone lock: the participants' pages renegotiate their publisher without audio, the
      // teacher stops hearing them; video goes on; the release brings their audio back.
      const audioBytes = (page: Page) => inboundTotal(page, 'audio', 'bytesReceived');
      const rising = async (page: Page, ms: number) => {
        const before = await audioBytes(page);
        await page.waitForTimeout(ms);
        return (await audioBytes(page)) > before;
      };
      const sendingAudio = (page: Page) =>
        page.evaluate(() =>
          (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers
            .filter((pc) => pc.connectionState !== 'closed')
            .some((pc) => pc.getSenders().some((sender) => sender.track?.kind === 'audio')),
        );
      t.ok(await rising(teacher, 1000), 'the teacher hears the participants');
      await teacher.getByRole('button', { name: 'Moderation' }).click();
      await teacher.getByRole('checkbox', { name: 'Lock microphones' }).check();
      await until(
        'Ann and Ben to stop handing audio to their publisher',
        async () => !(await sendingAudio(ann)) && !(await sendingAudio(ben)),
        30_000,
        200,
      );
      await until('the audio at the teacher to stop', async () => !(await rising(teacher, 1000)), 30_000, 0);
      t.notOk(await rising(teacher, 2000), 'under the lock no audio of theirs reaches the teacher');
      await until("Ann's outline to go at the teacher", async () => !(await outlined(teacher, 'Ann')), 10_000, 100);
      t.pass('silenced by the lock, Ann is no longer outlined at the teacher');
      t.ok(await plays(teacher, 'Ann'), "Ann's video goes on through the renegotiation");
      await teacher.getByRole('checkbox', { name: 'Lock microphones' }).uncheck();
      // The lock muted them; its release lets them unmute, it does not unmute anyone. A muted
      // microphone sends nothing at all (not even silence), so the teacher hears them once they do.
      t.notOk(await rising(teacher, 2000), 'released, they are still muted: nothing reaches the teacher');
      for (const page of [ann, ben]) await page.getByRole('button', { name: 'Unmute microphone', exact: true }).click();
      await until('their audio to reach the teacher again', () => rising(teacher, 1000), 30_000, 0);
      t.pass('released and unmuted by themselves, they are heard again');

      // A modified page: Ann's console keeps her microphone on and her publisher sending whatever
      // the lock says (the track cannot be disabled, the transceiver's direction and track cannot be
      // changed, so her page never renegotiates). Janus, told by the daemon, forwards none of it.
      await ann.evaluate(() => {
        const enabled = Object.getOwnPropertyDescriptor(MediaStreamTrack.prototype, 'enabled')!;
        Object.defineProperty(MediaStreamTrack.prototype, 'enabled', {
          configurable: true,
          get(this: MediaStreamTrack) {
            return enabled.get!.call(this) as boolean;
          },
          set(this: MediaStreamTrack) {
            enabled.set!.call(this, true);
          },
        });
        const direction = Object.getOwnPropertyDescriptor(RTCRtpTransceiver.prototype, 'direction')!;
        Object.defineProperty(RTCRtpTransceiver.prototype, 'direction', {
          configurable: true,
          get(this: RTCRtpTransceiver) {
            return direction.get!.call(this) as RTCRtpTransceiverDirection;
          },
          set() {},
        });
        const replaceTrack = Object.getOwnPropertyDescriptor(RTCRtpSender.prototype, 'replaceTrack')!.value as (
          this: RTCRtpSender,
          track: MediaStreamTrack | null,
        ) => Promise<void>;
        RTCRtpSender.prototype.replaceTrack = function (this: RTCRtpSender, track: MediaStreamTrack | null) {
          return track ? replaceTrack.call(this, track) : Promise.resolve();
        };
      });
      const audioSent = (page: Page) =>
        page.evaluate(async () => {
          let bytes = 0;
          for (const pc of (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers.filter(
            (c) => c.connectionState !== 'closed',
          ))
            (await pc.getStats()).forEach((s: { type: string; kind?: string; bytesSent?: number }) => {
              if (s.type === 'outbound-rtp' && s.kind === 'audio') bytes += s.bytesSent ?? 0;
            });
          return bytes;
        });
      await teacher.getByRole('checkbox', { name: 'Lock microphones' }).check();
      await until('Ben to stop handing audio to his publisher', async () => !(await sendingAudio(ben)), 30_000, 200);
      await until('the audio at the teacher to stop', async () => !(await rising(teacher, 1000)), 30_000, 0);
      const sentBefore = await audioSent(ann);
      t.notOk(await rising(teacher, 2000), "under the lock nothing of Ann's forced microphone reaches the teacher");
      t.ok((await audioSent(ann)) > sentBefore, 'while her page kept sending audio to the server all along');
      t.ok(await sendingAudio(ann), 'her publisher still holds her microphone');
      await teacher.getByRole('checkbox', { name: 'Lock microphones' }).uncheck();
      await until("Ann's audio to reach the teacher again", () => rising(teacher, 1000), 30_000, 0);
      t.pass('released, her forwarding resumes');

      // The moderator moves Ben to a sub-group: his media in the lesson ends.
      await teacher.getByRole('tab', { name: 'Moderation' }).click();
      await teacher.getByRole('spinbutton', { name: 'Number of sub-groups' }).fill('2');
      await teacher.getByRole('button', { name: 'Create sub-groups' }).click();
      await teacher.getByRole('list', { name: 'The sub-groups' }).getByText('Group 2', { exact: true }).waitFor();
      await teacher.getByRole('tab', { name: 'People' }).click();
      await teacher.getByRole('combobox', { name: 'Sub-group for Ben' }).selectOption('lesson-g1');
      const moved = Date.now();
      await teacher.getByRole('button', { name: 'Move Ben', exact: true }).click();
      await until(
        "Ben's lesson connections to close",
        async () =>
          ben.evaluate(() =>
            (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers
              .slice(0, 2)
              .every((pc) => pc.connectionState === 'closed'),
          ),
        10_000,
        100,
      );
      for (const [me, page] of [
        ['Teacher', teacher],
        ['Ann', ann],
      ] as const) {
        await until(
          `${me} to lose Ben's tile`,
          async () => (await page.getByRole('listitem', { name: 'Ben', exact: true }).count()) === 0,
          10_000,
          100,
        );
        await until(`${me} to stop receiving Ben's video`, async () => (await receivedVideos(page)) === 1, 10_000, 100);
      }
      t.pass(`Ben's media left the lesson (${Date.now() - moved} ms; each step above waits at most 10 s)`);
      t.ok(await plays(ann, 'Teacher'), "Ann still plays the teacher's video");
      t.equal((await connectionCounts(ann)).peerConnections, 2, 'and still on her two connections');

      // Back from the sub-group, Ben is a publisher again: the others receive him anew.
      await teacher.getByRole('tab', { name: 'Moderation' }).click();
      await teacher.getByRole('button', { name: 'Bring everyone back' }).click();
      await until('Ben to be back in the lesson', async () => /\/room\/lesson$/.test(ben.url()), 60_000);
      await until("Ann to see Ben's video again", () => plays(ann, 'Ben'), 45_000, 250);
      await until("Ben to see Ann's video again", () => plays(ben, 'Ann'), 45_000, 250);
      t.pass('brought back, Ben is seen and sees again');

      // The teacher removes Ben from the People list. A cancel first: Escape answers the dialog and
      // the focus is back on his Remove button.
      await teacher.getByRole('tab', { name: 'People' }).click();
      await teacher.getByRole('button', { name: 'Remove Ben', exact: true }).click();
      const dialog = teacher.getByRole('dialog', { name: 'Remove Ben from the meeting?' });
      await dialog.waitFor();
      await teacher.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      t.equal(
        await teacher.evaluate(() => document.activeElement?.getAttribute('aria-label')),
        'Remove Ben',
        'cancelled: the focus is back on his button',
      );
      const tracksOfBen = async (page: Page) =>
        page
          .getByRole('listitem', { name: 'Ben', exact: true })
          .locator('video')
          .evaluate((v: HTMLVideoElement) => (v.srcObject as MediaStream).getTracks().map((track) => track.id));
      const receivers = {
        Teacher: { page: teacher, tracks: await tracksOfBen(teacher) },
        Ann: { page: ann, tracks: await tracksOfBen(ann) },
      };
      // Watched inside the pages, so that no round trip of the test's own is measured: Ben's page
      // notes when its last open RTCPeerConnection was closed (each close() wrapped), and every
      // 100 ms the watched pages note when Ben's inbound bytes last grew (his receivers on their
      // open connections). Times are the machine's clock, shared by the test and the browser.
      type Watch = { lastGrowth: number; bytes: number; closedAt: number };
      const watch = (page: Page, tracks: string[] | null) =>
        page.evaluate((ids) => {
          const w = window as unknown as { __meetPeers: RTCPeerConnection[]; __watch: Watch };
          w.__watch = { lastGrowth: 0, bytes: -1, closedAt: 0 };
          for (const pc of w.__meetPeers) {
            const close = pc.close.bind(pc);
            pc.close = () => {
              close();
              if (w.__watch.closedAt === 0 && w.__meetPeers.every((p) => p.connectionState === 'closed'))
                w.__watch.closedAt = Date.now();
            };
          }
          if (!ids) return;
          const tick = async () => {
            let bytes = 0;
            for (const pc of w.__meetPeers.filter((p) => p.connectionState !== 'closed'))
              (await pc.getStats()).forEach((s: { type: string; trackIdentifier?: string; bytesReceived?: number }) => {
                if (s.type === 'inbound-rtp' && ids.includes(s.trackIdentifier ?? '')) bytes += s.bytesReceived ?? 0;
              });
            if (w.__watch.bytes >= 0 && bytes > w.__watch.bytes) w.__watch.lastGrowth = Date.now();
            w.__watch.bytes = bytes;
            setTimeout(() => void tick(), 100);
          };
          void tick();
        }, tracks);
      const watched = (page: Page) => page.evaluate(() => (window as unknown as { __watch: Watch }).__watch);
      await watch(ben, null);
      for (const [me, { page, tracks }] of Object.entries(receivers)) {
        await watch(page, tracks);
        await until(
          `${me}'s watch to see Ben's bytes grow`,
          async () => (await watched(page)).lastGrowth > 0,
          10_000,
          50,
        );
      }

      await teacher.getByRole('button', { name: 'Remove Ben', exact: true }).click();
      await dialog.waitFor();
      t.equal(
        await teacher.evaluate(() => document.activeElement?.textContent),
        'Cancel',
        'the dialog opens on Cancel: a stray Enter removes nobody',
      );
      await teacher.keyboard.press('Tab');
      // The gesture's time is the click event's in the teacher's page (Enter on the focused Remove).
      await teacher.evaluate(() =>
        document.addEventListener(
          'click',
          () => ((window as unknown as { __gestureAt: number }).__gestureAt = Date.now()),
          { capture: true, once: true },
        ),
      );
      await teacher.keyboard.press('Enter');
      const gesture = await teacher.evaluate(() => (window as unknown as { __gestureAt: number }).__gestureAt);
      await until("Ben's connections to close", async () => (await watched(ben)).closedAt > 0, 10_000, 50);
      const { closedAt } = await watched(ben);
      t.ok(
        closedAt - gesture < 1000,
        `every RTCPeerConnection of Ben's page is closed ${closedAt - gesture} ms after the gesture`,
      );
      for (const [me, { page }] of Object.entries(receivers)) {
        // Settled once 1.5 s pass without growth; the proof is when it last grew, not the wait.
        let last = 0;
        await until(
          `${me} to stop receiving Ben`,
          async () => {
            last = (await watched(page)).lastGrowth;
            return Date.now() - Math.max(last, gesture) > 1500;
          },
          15_000,
          100,
        );
        t.ok(
          last - gesture < 1000,
          `${me} received the last of Ben ${last - gesture} ms after the gesture (negative: it had stopped before)`,
        );
        await until(
          `${me} to lose Ben's tile`,
          async () => (await page.getByRole('listitem', { name: 'Ben', exact: true }).count()) === 0,
          5_000,
          50,
        );
      }
      await ben.getByRole('heading', { name: 'A moderator removed you from the meeting.' }).waitFor();
      await ben.getByRole('link', { name: 'Ask to join again' }).click();
      await ben.getByRole('button', { name: 'Join' }).waitFor();
      t.pass('Ben is told in words and asks again from the arrival screen: his old session brought him nowhere');
      t.ok(await plays(ann, 'Teacher'), 'Ann still plays the teacher');
    },
  );
}
