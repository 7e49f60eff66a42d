// Issue 28 point 2: under a microphone (camera) lock, no offer shape gets a participant's audio
// (video) forwarded by Janus. A spawned daemon with its own Janus; the publisher is a werift
// peer whose offer is rewritten as a modified page would, and which sends RTP of both kinds
// whatever was negotiated; a second participant's werift subscriber counts what Janus forwards.
import t from 'tap';
import { LiveSocket, SyntheticSubscriber } from '../../../../bench/lib/synthetic-peer.js';
import { janusMediaSkip, janusMeeting, RewritingPublisher } from '../../../helpers/janus-peers.js';
import { pause } from '../../../helpers/live.js';
import { until } from '../../../helpers/net.js';

type Kind = 'audio' | 'video';

/** The m-section of `kind` in a werift offer (one per kind), edited by `edit`; the session part by `session`. */
function rewrite(
  sdp: string,
  kind: Kind,
  edit: (section: string) => string,
  session: (head: string) => string = (h) => h,
): string {
  const parts = sdp.split(/(?=^m=)/m);
  return parts.map((part, i) => (i === 0 ? session(part) : part.startsWith(`m=${kind}`) ? edit(part) : part)).join('');
}
const withoutDirection = (section: string) => section.replace(/^a=(sendonly|sendrecv|recvonly|inactive)\r\n/m, '');
const sessionLine = (line: string) => (head: string) => head.replace(/^t=0 0\r\n/m, `t=0 0\r\n${line}\r\n`);

/** Offer shapes of the locked kind: the probe's, and the others the direction rules allow. */
const shapes: { name: string; apply: (sdp: string, kind: Kind) => string }[] = [
  {
    name: 'session a=recvonly, no direction on the m-line (the probe)',
    apply: (s, k) => rewrite(s, k, withoutDirection, sessionLine('a=recvonly')),
  },
  {
    name: 'session a=inactive, no direction on the m-line',
    apply: (s, k) => rewrite(s, k, withoutDirection, sessionLine('a=inactive')),
  },
  {
    name: 'session a=sendonly, no direction on the m-line',
    apply: (s, k) => rewrite(s, k, withoutDirection, sessionLine('a=sendonly')),
  },
  { name: 'no direction anywhere (sendrecv)', apply: (s, k) => rewrite(s, k, withoutDirection) },
  { name: 'a=sendonly on the m-line', apply: (s) => s },
  {
    name: 'a=recvonly on the m-line, sending anyway',
    apply: (s, k) => rewrite(s, k, (m) => m.replace(/^a=sendonly$/m, 'a=recvonly')),
  },
  {
    name: 'a=inactive on the m-line, sending anyway',
    apply: (s, k) => rewrite(s, k, (m) => m.replace(/^a=sendonly$/m, 'a=inactive')),
  },
  {
    name: 'upper-case A=RECVONLY on the m-line',
    apply: (s, k) => rewrite(s, k, (m) => m.replace(/^a=sendonly$/m, 'a=RECVONLY')),
  },
  {
    name: 'port 0 on the m-line, still bundled',
    apply: (s, k) => rewrite(s, k, (m) => m.replace(/^m=(\w+) 9 /, 'm=$1 0 ')),
  },
];

t.test(
  'under a lock, no offer shape gets the locked kind forwarded by Janus',
  { skip: janusMediaSkip, timeout: 240_000 },
  async (t) => {
    const meeting = await janusMeeting(t, '45400-45599');
    const locks = {
      audio: { mic: true, cam: false, cams_moderators_only: false },
      video: { mic: false, cam: true, cams_moderators_only: false },
    };
    let n = 0;
    for (const locked of ['audio', 'video'] as const) {
      const other: Kind = locked === 'audio' ? 'video' : 'audio';
      // A watcher per lock: werift's subscriber loses count of a kind once Janus has recycled many of its m-lines.
      const watcher = new SyntheticSubscriber(
        await LiveSocket.open(meeting.daemon.url, meeting.roomId, await meeting.pupil(`Watcher ${locked}`)),
      );
      t.teardown(() => watcher.close());
      meeting.moderator.send({ type: 'lock', locks: locks[locked] });
      await meeting.moderator.next(
        'locks',
        (m) => m.locks.mic === locks[locked].mic && m.locks.cam === locks[locked].cam,
      );
      for (const shape of shapes) {
        n += 1;
        const publisher = new RewritingPublisher(await meeting.connect(await meeting.pupil(`Pupil ${n}`)));
        const outcome = await publisher.offer((sdp) => shape.apply(sdp, locked));
        const before = { audio: watcher.audio.received, video: watcher.video.received };
        if ('error' in outcome) {
          t.match(
            outcome.error,
            /^(locked: |unusable answer$)/,
            `${locked} lock, ${shape.name}: refused as locked, or no answer to send with (${outcome.error})`,
          );
        } else {
          await until('her connection to Janus', async () => publisher.pc.connectionState === 'connected', 15_000, 50);
          publisher.start();
          // The kind not locked reaches the watcher: the path works, so a zero below means something.
          await until(
            `her ${other} to reach the watcher (${shape.name})`,
            async () => watcher[other].received - before[other] > 20,
            20_000,
            100,
          );
          await pause(1000);
        }
        const leaked = watcher[locked].received - before[locked];
        t.equal(
          leaked,
          0,
          `${locked} lock, ${shape.name}: no ${locked} packet forwarded (she sent ${publisher.sent[locked]})`,
        );
        await publisher.close();
        await pause(300);
      }
    }
  },
);
