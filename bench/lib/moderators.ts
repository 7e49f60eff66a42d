import WebSocket from 'ws';
import { Client, cookieFrom, inParallel } from './http.js';
import { Keeper, sleep } from './keeper.js';
import { cpuSecondsOf, othersCpuPct } from './proc.js';
import type { Daemon } from './servers.js';

/**
 * The moderators' waiting list at scale (issue 15, point 4): 1,000 people waiting, 10 knocks a
 * second, 5 moderators connected to the live connection. Each knock is paired with a moderator's
 * refusal of the oldest request, so the list stays at 1,000 (its cap) and every 100 ms brings
 * two changes. It reports the daemon's CPU per change, beyond what the same 1,000 waiting cost
 * at rest (their pages' polls, kept by the keeper), and what each moderator's socket received.
 */

export interface ModeratorFigures {
  readonly waiting: number;
  readonly moderators: number;
  readonly knocksPerSec: number;
  readonly windowSec: number;
  /** Knocks and refusals answered in the window. */
  readonly changes: number;
  /** Daemon CPU (% of one core) with only the waiting people's polls, then with the changes too. */
  readonly restCpuPct: number;
  readonly busyCpuPct: number;
  /** (busy − rest CPU rate) × busy time / changes: a change's whole cost (its HTTP request, durable write, and the pushes to 5 moderators). */
  readonly cpuMsPerChange: number;
  /** Bytes and messages one moderator's socket received in the window (mean of the 5). */
  readonly bytesPerModerator: number;
  readonly messagesPerModerator: number;
  readonly bytesPerModeratorPerChange: number;
  /** Whole lists (waiting_list) a moderator received in the window: none is the point. */
  readonly wholeListsPerModerator: number;
  /** The list the first moderator held at the end (from the messages) equals GET /waiting-list. */
  readonly consistent: boolean | null;
  /** Other programs' CPU during the busy slices (% of one core, mean): the figure is noisy by about that much. */
  readonly otherCpuPct: number | null;
  readonly errors: number;
}

interface Item {
  readonly request_id: string;
  readonly knocked_at: string;
}

/** One moderator's socket: bytes and messages counted, and the list held as a page holds it. */
class ModeratorSocket {
  bytes = 0;
  messages = 0;
  wholeLists = 0;
  seq = -1;
  gaps = 0;
  readonly list = new Map<string, Item>();
  private readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('message', (data: Buffer) => {
      this.bytes += data.length;
      this.messages += 1;
      const m = JSON.parse(data.toString('utf8')) as {
        type: string;
        seq?: number;
        requests?: Item[];
        added?: Item[];
        removed?: string[];
      };
      if (m.type === 'waiting_list') {
        this.wholeLists += 1;
        this.seq = m.seq!;
        this.list.clear();
        for (const r of m.requests!) this.list.set(r.request_id, r);
      } else if (m.type === 'waiting_changes') {
        if (m.seq !== this.seq + 1) this.gaps += 1;
        this.seq = m.seq!;
        for (const id of m.removed!) this.list.delete(id);
        for (const r of m.added!) this.list.set(r.request_id, r);
      }
    });
  }

  /** The request waiting longest, as this moderator sees it. */
  oldest(): string | null {
    let best: Item | null = null;
    for (const r of this.list.values()) if (!best || r.knocked_at < best.knocked_at) best = r;
    return best?.request_id ?? null;
  }

  close(): void {
    this.socket.close(1000);
  }
}

const address = (n: number) => `10.${200 + ((n >>> 16) & 15)}.${(n >>> 8) & 255}.${n & 255}`;

export async function moderatorScenario(
  daemon: Daemon,
  options: {
    windowSec: number;
    waiting?: number;
    moderators?: number;
    knocksPerSec?: number;
    log: (m: string) => void;
  },
): Promise<ModeratorFigures> {
  const waiting = options.waiting ?? 1000;
  const moderatorCount = options.moderators ?? 5;
  const knocksPerSec = options.knocksPerSec ?? 10;
  const roomId = 'moderators-room';
  const client = new Client(daemon.url, 32);
  const admin = { authorization: `Bearer ${daemon.adminToken}` };
  const created = await client.request('POST', '/api/rooms', {
    json: {
      room_id: roomId,
      name: 'Lecture hall',
      waiting_room: 'all',
      waiting_room_mode: 'approval',
      waiting_room_timeout_secs: 3600,
    },
    headers: admin,
  });
  if (created.status !== 201) throw new Error(`creating ${roomId}: ${created.status} ${created.text}`);

  const sessions: string[] = [];
  for (let i = 0; i < moderatorCount; i++) {
    const link = await client.request('POST', `/api/rooms/${roomId}/links`, {
      json: { role: 'moderator' },
      headers: admin,
    });
    const t = new URL((JSON.parse(link.text) as { url: string }).url, daemon.url).searchParams.get('t');
    const started = await client.request('POST', `/room/${roomId}/start`, { json: { name: `Teacher ${i + 1}`, t } });
    const session = (JSON.parse(started.text) as { session?: string }).session;
    if (!session) throw new Error(`moderator ${i + 1} did not enter: ${started.status} ${started.text}`);
    sessions.push(session);
  }
  const wsBase = daemon.url.replace(/^http/, 'ws');
  const sockets = sessions.map(
    (s) => new ModeratorSocket(`${wsBase}/room/${roomId}/live?session=${encodeURIComponent(s)}`),
  );
  await Promise.all(sockets.map((s) => s.opened));

  // The waiting people, kept alive by their pages' polls (one every 4.5 s each; the sweep closes a request at 6 s).
  const keeper = new Keeper(daemon.url, 4500).start();
  let n = 0;
  let errors = 0;
  const knock = async (): Promise<boolean> => {
    const i = n++;
    const answer = await client.request('POST', `/room/${roomId}/knock`, {
      json: { name: `Student ${i}`, note: '' },
      headers: { 'x-forwarded-for': address(i) },
    });
    const secret = cookieFrom(answer.headers['set-cookie'], 'meet_wait');
    if (answer.status !== 202 || !secret) return false;
    keeper.add(`/room/${roomId}/waiting`, `meet_wait=${secret}`);
    return true;
  };
  // One below the cap: each tick's knock takes it to 1,000 and its refusal back.
  await inParallel(waiting - 1, 16, async () => {
    await keeper.whileBehind();
    if (!(await knock())) throw new Error('a setup knock was refused');
  });
  const decider = sockets[0]!;
  const deadline = Date.now() + 10_000;
  while (decider.list.size < waiting - 1 && Date.now() < deadline) await sleep(20);
  options.log(`moderators: ${decider.list.size} waiting, ${moderatorCount} moderators connected`);
  await sleep(1000);

  // Slices at rest (only the polls) alternate with busy slices (every 100 ms a knock, then the
  // first moderator refuses the oldest request she holds), so that drift of this shared virtual
  // machine falls on both alike.
  const before = sockets.map((s) => ({ bytes: s.bytes, messages: s.messages, wholeLists: s.wholeLists }));
  const slices = 4;
  const sliceMs = (options.windowSec * 1000) / slices;
  const tickMs = 1000 / knocksPerSec;
  let restCpu = 0;
  let restSec = 0;
  let busyCpu = 0;
  let busySec = 0;
  let changes = 0;
  let otherSum = 0;
  let otherCount = 0;
  const cpu = () => cpuSecondsOf(daemon.pid) ?? 0;
  for (let slice = 0; slice < slices; slice++) {
    const rest0 = cpu();
    const restT0 = performance.now();
    await sleep(sliceMs);
    restCpu += cpu() - rest0;
    restSec += (performance.now() - restT0) / 1000;

    const othersPromise = othersCpuPct([daemon.pid], sliceMs);
    const busy0 = cpu();
    const busyT0 = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let k = 0; k < Math.round((sliceMs / 1000) * knocksPerSec); k++) {
      const wait = busyT0 + k * tickMs - performance.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(
        (async () => {
          if (await knock()) changes += 1;
          else errors += 1;
          const oldest = decider.oldest();
          if (!oldest) return;
          decider.list.delete(oldest);
          const refused = await client.request('POST', `/room/${roomId}/refuse`, {
            json: { request_id: oldest },
            headers: { authorization: `Bearer ${sessions[0]!}` },
          });
          if (refused.status === 200) changes += 1;
          else errors += 1;
        })(),
      );
    }
    await Promise.all(inFlight);
    // The last pushes leave after the last answer.
    await sleep(50);
    busyCpu += cpu() - busy0;
    busySec += (performance.now() - busyT0) / 1000;
    const others = await othersPromise;
    if (others !== null) {
      otherSum += others;
      otherCount += 1;
    }
  }
  const restCpuPct = (restCpu / restSec) * 100;
  const busyCpuPct = (busyCpu / busySec) * 100;
  const otherCpuPct = otherCount > 0 ? otherSum / otherCount : null;
  const received = sockets.map((s, i) => ({
    bytes: s.bytes - before[i]!.bytes,
    messages: s.messages - before[i]!.messages,
    wholeLists: s.wholeLists - before[i]!.wholeLists,
  }));

  const listed = await client.request('GET', `/room/${roomId}/waiting-list`, {
    headers: { authorization: `Bearer ${sessions[1]!}` },
  });
  await sleep(200);
  const httpIds = (JSON.parse(listed.text) as Item[]).map((r) => r.request_id).sort();
  const heldIds = [...sockets[1]!.list.keys()].sort();
  const consistent =
    listed.status === 200
      ? JSON.stringify(httpIds) === JSON.stringify(heldIds) && sockets.every((s) => s.gaps === 0)
      : null;

  for (const s of sockets) s.close();
  await keeper.stop();
  client.close();
  const mean = (pick: (r: (typeof received)[number]) => number) =>
    received.reduce((sum, r) => sum + pick(r), 0) / received.length;
  const bytesPerModerator = mean((r) => r.bytes);
  const extraCpuSec = ((busyCpuPct - restCpuPct) / 100) * busySec;
  return {
    waiting,
    moderators: moderatorCount,
    knocksPerSec,
    windowSec: busySec,
    changes,
    restCpuPct,
    busyCpuPct,
    cpuMsPerChange: changes > 0 ? (extraCpuSec * 1000) / changes : Number.NaN,
    bytesPerModerator,
    messagesPerModerator: mean((r) => r.messages),
    bytesPerModeratorPerChange: changes > 0 ? bytesPerModerator / changes : Number.NaN,
    wholeListsPerModerator: mean((r) => r.wholeLists),
    consistent,
    otherCpuPct,
    errors,
  };
}
