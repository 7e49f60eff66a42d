import { readdirSync, readFileSync } from 'node:fs';
import { Client } from './http.js';
import { sleep } from './keeper.js';
import { cpuSecondsOf, machineBusySeconds, memoryOf } from './proc.js';
import { formatTable, median } from './report.js';
import type { Daemon } from './servers.js';
import {
  classroomCamera,
  LiveSocket,
  SyntheticPublisher,
  SyntheticSubscriber,
  type CameraShape,
} from './synthetic-peer.js';

/**
 * The `sfu` scenario (issue 18): one teacher publishing a camera and a microphone through the
 * daemon's own Janus, and N pupils receiving her, for N rising step by step. Everyone enters as
 * the product admits them (a moderator link for the teacher, the room's address for the pupils,
 * no waiting room) and holds a live socket; media is negotiated through the server's
 * `sfu:publish` / `sfu:subscribe` signals, as the page does. Publisher and subscribers are werift
 * peers in this process (bench/lib/synthetic-peer.ts), not browsers. Per step it measures Janus's
 * and the daemon's CPU, what each pupil lost, and whether the step holds (see `holdRule`).
 */

/** The daemon's settings for this scenario: Janus required (not auto), its own UDP ports away from the tests'. */
export const sfuDaemonEnv = { SERVICE_MEDIA: 'janus', SERVICE_RTP_PORTS: '46000-47999' } as const;

export const defaultSfuSteps = [5, 10, 20, 30, 40, 60, 80, 100, 150, 200];
/** A step holds when every pupil lost less than this share of the teacher's video packets. */
export const lossLimitPct = 2;
export const holdRule =
  `a step holds when every subscriber received video, each lost under ${lossLimitPct}% of the video packets sent in the window ` +
  '(RTP sequence gaps), and Janus and the daemon each used under 100% of one core; the first step that does not hold ends the run';

export interface SfuStep {
  readonly subscribers: number;
  readonly windowSec: number;
  /** % of one core over the window (all threads). */
  readonly janusCpuPct: number | null;
  readonly daemonCpuPct: number | null;
  /** This process: the teacher, the pupils and their werift stacks (the load generator). */
  readonly benchCpuPct: number;
  readonly otherCpuPct: number | null;
  readonly janusRssMb: number | null;
  /** Video packets lost over all pupils (received / expected), the worst pupil's loss, audio over all. */
  readonly videoLossPct: number;
  readonly worstVideoLossPct: number;
  readonly audioLossPct: number | null;
  /** Video packets a second each pupil received (mean), against what the teacher sent. */
  readonly videoPpsPerSubscriber: number;
  readonly sentVideoPps: number;
  /**
   * Janus's CPU over the video packets the pupils received (µs each, audio and fixed cost
   * included): unlike Janus's % of a core, it does not fall when a loaded machine keeps the
   * publisher from sending at the camera's rate.
   */
  readonly janusUsPerVideoPacket: number | null;
  readonly holds: boolean;
  /** Why it does not hold, or a caution about it (the load generator was CPU-bound). */
  readonly notes: readonly string[];
}

export interface SfuFigures {
  readonly camera: CameraShape;
  readonly rule: string;
  readonly lossLimitPct: number;
  readonly steps: readonly SfuStep[];
  /** The largest N that held, and subscribers per core of Janus CPU at that step (its fixed cost included). */
  readonly largestHolding: number | null;
  readonly subscribersPerJanusCore: number | null;
  /** What one more subscriber costs Janus, in % of a core: the slope of its CPU over the steps that held (two at least). */
  readonly janusCpuPctPerSubscriber: number | null;
  /**
   * Pupils one core of Janus carries at the camera's full rate, from the median of the steps'
   * janusUsPerVideoPacket: 1 s / (that × the video packets a second of the camera).
   */
  readonly subscribersPerJanusCoreAtFullRate: number | null;
  readonly stoppedBecause: string;
  readonly totalSec: number;
}

/** The Janus the daemon started: its child process named janus. */
export function janusPidOf(daemonPid: number): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === daemonPid && name === 'janus') return Number(entry);
    } catch {
      // gone while listed
    }
  }
  return null;
}

interface Entered {
  readonly session: string;
}

async function enter(client: Client, path: string, json: unknown): Promise<Entered> {
  const answer = await client.request('POST', path, { json });
  const session = (JSON.parse(answer.text) as { session?: string }).session;
  if (!session) throw new Error(`${path}: no session (${answer.status} ${answer.text})`);
  return { session };
}

export async function sfuScenario(
  daemon: Pick<Daemon, 'url' | 'adminToken' | 'pid'>,
  options: {
    steps: readonly number[];
    windowSec: number;
    settleSec?: number;
    camera?: CameraShape;
    log: (m: string) => void;
  },
): Promise<SfuFigures> {
  const t0 = Date.now();
  const camera = options.camera ?? classroomCamera;
  const roomId = 'sfu-class';
  const client = new Client(daemon.url, 4);
  const admin = { authorization: `Bearer ${daemon.adminToken}` };
  const created = await client.request('POST', '/api/rooms', {
    json: { room_id: roomId, name: 'Class 9B', waiting_room: 'off' },
    headers: admin,
  });
  if (created.status !== 201) throw new Error(`creating ${roomId}: ${created.status} ${created.text}`);
  const link = await client.request('POST', `/api/rooms/${roomId}/links`, {
    json: { role: 'moderator' },
    headers: admin,
  });
  const t = new URL((JSON.parse(link.text) as { url: string }).url, daemon.url).searchParams.get('t');
  const teacher = await enter(client, `/room/${roomId}/start`, { name: 'Teacher', t });
  const publisher = new SyntheticPublisher(await LiveSocket.open(daemon.url, roomId, teacher.session), camera);
  await publisher.start();
  const janusPid = janusPidOf(daemon.pid);
  options.log(`sfu: the teacher publishes through Janus (pid ${janusPid ?? 'not found'})`);

  const pupils: SyntheticSubscriber[] = [];
  const steps: SfuStep[] = [];
  let stoppedBecause = `every step held up to ${options.steps.at(-1)} subscribers, the largest asked: the limit is higher`;
  try {
    for (const n of options.steps) {
      const joinT0 = Date.now();
      try {
        while (pupils.length < n) {
          const pupil = await enter(client, `/room/${roomId}/knock`, { name: `Pupil ${pupils.length + 1}`, note: '' });
          pupils.push(new SyntheticSubscriber(await LiveSocket.open(daemon.url, roomId, pupil.session)));
        }
        await Promise.all(pupils.map((p) => p.receiving(10, 30_000)));
      } catch (err) {
        stoppedBecause = `${n} subscribers could not all be set up: ${(err as Error).message}`;
        options.log(`sfu: ${stoppedBecause}`);
        break;
      }
      options.log(`sfu: ${n} subscribers receive (joined in ${((Date.now() - joinT0) / 1000).toFixed(1)} s)`);
      await sleep((options.settleSec ?? 2) * 1000);
      const step = await measureStep(daemon.pid, janusPid, publisher, pupils, options.windowSec);
      steps.push(step);
      options.log(
        `sfu, ${n} subscribers: Janus ${fmt(step.janusCpuPct)}%, daemon ${fmt(step.daemonCpuPct)}%, bench ${step.benchCpuPct.toFixed(0)}% of a core; ` +
          `video loss ${step.videoLossPct.toFixed(2)}% (worst ${step.worstVideoLossPct.toFixed(2)}%), ${step.holds ? 'holds' : `does not hold: ${step.notes.join('; ')}`}`,
      );
      if (!step.holds) {
        stoppedBecause = `${n} subscribers did not hold: ${step.notes.join('; ')}`;
        break;
      }
    }
  } finally {
    await Promise.all(pupils.map((p) => p.close().catch(() => undefined)));
    await publisher.close().catch(() => undefined);
    client.close();
  }
  const holding = steps.filter((s) => s.holds);
  const held = holding.at(-1) ?? null;
  return {
    camera,
    rule: holdRule,
    lossLimitPct,
    steps,
    largestHolding: held?.subscribers ?? null,
    subscribersPerJanusCore: held?.janusCpuPct ? (held.subscribers * 100) / held.janusCpuPct : null,
    janusCpuPctPerSubscriber: slope(
      holding.flatMap((s) => (s.janusCpuPct === null ? [] : [[s.subscribers, s.janusCpuPct] as const])),
    ),
    subscribersPerJanusCoreAtFullRate: perCoreAtFullRate(holding),
    stoppedBecause,
    totalSec: (Date.now() - t0) / 1000,
  };
}

/** The camera's video packets a second: the most the publisher sent in a window (a loaded machine sends fewer). */
function fullVideoPps(steps: readonly SfuStep[]): number | null {
  const sent = steps.map((s) => s.sentVideoPps);
  return sent.length === 0 ? null : Math.max(...sent);
}

/** Pupils per core of Janus at the full camera rate; null without a step that measured Janus. */
function perCoreAtFullRate(steps: readonly SfuStep[]): number | null {
  const costs = steps.flatMap((s) => (s.janusUsPerVideoPacket === null ? [] : [s.janusUsPerVideoPacket]));
  const pps = fullVideoPps(steps);
  if (costs.length === 0 || pps === null || pps <= 0) return null;
  return 1e6 / (median(costs) * pps);
}

/** Least-squares slope of y over x; null with fewer than two distinct x. */
export function slope(points: readonly (readonly [number, number])[]): number | null {
  if (new Set(points.map(([x]) => x)).size < 2) return null;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  return sxy / sxx;
}

const fmt = (n: number | null) => (n === null ? '?' : n.toFixed(0));

async function measureStep(
  daemonPid: number,
  janusPid: number | null,
  publisher: SyntheticPublisher,
  pupils: readonly SyntheticSubscriber[],
  windowSec: number,
): Promise<SfuStep> {
  const bench = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const cpu = () => ({
    janus: janusPid === null ? null : cpuSecondsOf(janusPid),
    daemon: cpuSecondsOf(daemonPid),
    bench: bench(),
    busy: machineBusySeconds(),
  });
  const counts = () => pupils.map((p) => ({ video: p.video.snapshot(), audio: p.audio.snapshot() }));
  const sent0 = publisher.sent;
  const before = { cpu: cpu(), counts: counts(), at: performance.now() };
  await sleep(windowSec * 1000);
  const after = { cpu: cpu(), counts: counts(), at: performance.now() };
  const wall = (after.at - before.at) / 1000;
  const pct = (a: number | null, b: number | null) => (a === null || b === null ? null : ((b - a) / wall) * 100);
  const janusCpuPct = pct(before.cpu.janus, after.cpu.janus);
  const daemonCpuPct = pct(before.cpu.daemon, after.cpu.daemon);
  const benchCpuPct = pct(before.cpu.bench, after.cpu.bench) ?? 0;
  const busyPct = pct(before.cpu.busy, after.cpu.busy);
  const otherCpuPct =
    busyPct === null ? null : Math.max(0, busyPct - (janusCpuPct ?? 0) - (daemonCpuPct ?? 0) - benchCpuPct);

  const loss = (kind: 'video' | 'audio') => {
    const per = pupils.map((_, i) => {
      const a = before.counts[i]![kind];
      const b = after.counts[i]![kind];
      return { received: b.received - a.received, expected: b.expected - a.expected };
    });
    const received = per.reduce((s, p) => s + p.received, 0);
    const expected = per.reduce((s, p) => s + p.expected, 0);
    const lossOf = (r: number, e: number) => (e <= 0 ? 100 : Math.max(0, (1 - r / e) * 100));
    return {
      all: expected === 0 ? null : lossOf(received, expected),
      worst: Math.max(...per.map((p) => lossOf(p.received, p.expected))),
      received,
    };
  };
  const video = loss('video');
  const audio = loss('audio');
  const notes: string[] = [];
  const silent = before.counts.filter(
    (_, i) => after.counts[i]!.video.received === before.counts[i]!.video.received,
  ).length;
  if (silent > 0) notes.push(`${silent} subscriber(s) received no video in the window`);
  if (video.worst >= lossLimitPct)
    notes.push(`a subscriber lost ${video.worst.toFixed(1)}% of the video (limit ${lossLimitPct}%)`);
  if (janusCpuPct !== null && janusCpuPct >= 100) notes.push(`Janus used ${janusCpuPct.toFixed(0)}% of a core`);
  if (daemonCpuPct !== null && daemonCpuPct >= 100) notes.push(`the daemon used ${daemonCpuPct.toFixed(0)}% of a core`);
  const holds = notes.length === 0;
  const stalls = publisher.sent.stalls - sent0.stalls;
  if (stalls > 0)
    notes.push(
      `the publisher was not scheduled for over 100 ms ${stalls} time(s) (a loaded machine) and skipped those frames`,
    );
  if (benchCpuPct > 90)
    notes.push(`the load generator (this process) used ${benchCpuPct.toFixed(0)}% of a core: a loss may be its own`);
  return {
    subscribers: pupils.length,
    windowSec: wall,
    janusCpuPct,
    daemonCpuPct,
    benchCpuPct,
    otherCpuPct,
    janusRssMb: janusPid === null ? null : (memoryOf(janusPid)?.rssKb ?? Number.NaN) / 1024,
    videoLossPct: video.all ?? 100,
    worstVideoLossPct: video.worst,
    audioLossPct: audio.all,
    videoPpsPerSubscriber: video.received / pupils.length / wall,
    sentVideoPps: (publisher.sent.video - sent0.video) / wall,
    janusUsPerVideoPacket:
      janusCpuPct === null || video.received === 0 ? null : ((janusCpuPct / 100) * wall * 1e6) / video.received,
    holds,
    notes,
  };
}

export function sfuTable(f: SfuFigures): string {
  const header = [
    'subscribers',
    'holds',
    'Janus CPU',
    'daemon CPU',
    'bench CPU',
    'others',
    'video loss (worst)',
    'audio loss',
    'video pkt/s each (sent)',
    'Janus µs per video pkt',
    'Janus RSS',
  ];
  const rows = f.steps.map((s) => [
    String(s.subscribers),
    s.holds ? 'yes' : 'NO',
    `${fmt(s.janusCpuPct)}%`,
    `${fmt(s.daemonCpuPct)}%`,
    `${s.benchCpuPct.toFixed(0)}%`,
    `${fmt(s.otherCpuPct)}%`,
    `${s.videoLossPct.toFixed(2)}% (${s.worstVideoLossPct.toFixed(2)}%)`,
    s.audioLossPct === null ? '-' : `${s.audioLossPct.toFixed(2)}%`,
    `${s.videoPpsPerSubscriber.toFixed(0)} (${s.sentVideoPps.toFixed(0)})`,
    s.janusUsPerVideoPacket === null ? '?' : s.janusUsPerVideoPacket.toFixed(1),
    s.janusRssMb === null ? '?' : `${s.janusRssMb.toFixed(0)} MiB`,
  ]);
  return formatTable(header, rows, [true, false, true, true, true, true, true, true, true, true, true]);
}

/** The lines printed under the table: the rule, the verdict, the class size per core. */
export function sfuSummary(f: SfuFigures): string[] {
  const c = f.camera;
  return [
    `sfu: 1 publisher (werift, synthetic VP8 ${c.fps} fps ${c.videoKbps} kbit/s, keyframe every ${c.keyframeEvery} frames${c.audioBytes > 0 ? ', Opus 50 packets/s' : ''}) and N werift subscribers through the daemon's own Janus; CPU in % of one core over each window`,
    `sfu rule: ${f.rule}`,
    `sfu: largest N that held: ${f.largestHolding ?? 'none'}${f.subscribersPerJanusCore !== null ? `, i.e. ${Math.floor(f.subscribersPerJanusCore)} subscribers per core of Janus CPU at that step` : ''}` +
      `${f.janusCpuPctPerSubscriber !== null ? `; each subscriber adds ${f.janusCpuPctPerSubscriber.toFixed(2)}% of a core to Janus (slope over the steps that held)` : ''}; ${f.stoppedBecause}; ${f.totalSec.toFixed(0)} s`,
    ...(f.subscribersPerJanusCoreAtFullRate === null
      ? []
      : [
          `sfu: at the camera's full rate one core of Janus carries about ${Math.floor(f.subscribersPerJanusCoreAtFullRate)} subscribers (the median of the steps' Janus CPU per video packet received, fixed cost included; not lowered when a loaded machine slows the publisher)`,
        ]),
    ...f.steps.flatMap((s) => (s.notes.length > 0 ? [`sfu, ${s.subscribers} subscribers: ${s.notes.join('; ')}`] : [])),
  ];
}
