import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import WebSocket from 'ws';
import { Client } from './http.js';
import { sleep } from './keeper.js';
import { cpuSecondsOf } from './proc.js';
import type { Daemon } from './servers.js';

/**
 * The CPU of a relayed live message (issue 35 point 3): two or three nodes on one PostgreSQL and
 * one nats-server, a room owned by one of them. `pages` moderators' sockets straight to the owner,
 * as many through another node (the front), and with three nodes as many spread over the three in
 * turn (two thirds relayed, as behind nginx's round-robin), each send `perSecond` frames the hub
 * answers (an unknown type: parsed, counted against the socket's allowance, answered with an
 * error), so each round trip is one message each way. The sets' slices alternate; the figure is
 * what all nodes' CPU per round trip relayed costs beyond it per round trip direct, per message,
 * and the spread set's CPU per round trip against the direct one's (three nodes against one).
 */
export interface LiveRelayFigures {
  readonly pages: number;
  readonly perSecond: number;
  readonly windowSec: number;
  readonly nodes: number;
  /** Answers received per second, direct and relayed. */
  readonly directPerSec: number;
  readonly relayedPerSec: number;
  /** All nodes' CPU per round trip (µs): straight to the owner, and through the front. */
  readonly directUsPerRoundTrip: number;
  readonly relayedUsPerRoundTrip: number;
  /** With three nodes: the pages spread over them; null with two. */
  readonly spreadPerSec: number | null;
  readonly spreadUsPerRoundTrip: number | null;
  /** spread / direct: CPU per round trip with three nodes against the owner alone. */
  readonly threeVsOne: number | null;
  /** (relayed − direct) / 2: what relaying adds to one message, one way, both nodes together. */
  readonly usPerRelayedMessage: number;
  readonly lost: number;
}

export const natsServerBin = '/usr/sbin/nats-server';

/** A nats-server on `port` of 127.0.0.1 (Debian's package), or null where it is not installed. */
export function startNatsServer(port: number): { pid: number; stop(): void } | null {
  if (!existsSync(natsServerBin)) return null;
  const child = spawn(natsServerBin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  return { pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

/** The node id the bench gives a daemon named `daemon-<id>` (bench/run.ts's clusterScenario). */
export const nodeIdOf = (daemon: Daemon) => daemon.name.replace(/^daemon-/, '');

/**
 * The node owning `roomId`: a request to the room through any node makes its owner (the
 * rendezvous successor) claim it, then the rooms API names it (`owner_node`, to admins). A
 * non-owner forwards rather than refuses, so no status tells the owner apart.
 */
export async function roomOwner(nodes: readonly Daemon[], roomId: string, admin: string): Promise<Daemon> {
  const client = new Client(nodes[0]!.url, 1);
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      await client.request('GET', `/room/${roomId}/waiting`);
      const room = await client.request('GET', `/api/rooms/${roomId}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      const owner = (JSON.parse(room.text) as { owner_node?: string | null }).owner_node;
      const daemon = nodes.find((n) => nodeIdOf(n) === owner);
      if (daemon) return daemon;
      await sleep(100);
    }
  } finally {
    client.close();
  }
  throw new Error(`no node owns ${roomId} after 5 s`);
}

class Page {
  answers = 0;
  private readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data) => {
      const text = Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
      if (text.includes('"invalid_message"')) this.answers += 1;
    });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      this.socket.once('error', reject);
    });
  }

  send(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send('{"type":"bench_ping"}');
  }

  close(): void {
    this.socket.close();
  }
}

async function sessions(client: Client, daemon: Daemon, roomId: string, admin: string, count: number) {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const link = await client.request('POST', `/api/rooms/${roomId}/links`, {
      json: { role: 'moderator' },
      headers: { authorization: `Bearer ${admin}` },
    });
    const t = new URL((JSON.parse(link.text) as { url: string }).url, daemon.url).searchParams.get('t');
    const started = await client.request('POST', `/room/${roomId}/start`, { json: { name: `Page ${i + 1}`, t } });
    const session = (JSON.parse(started.text) as { session?: string }).session;
    if (!session) throw new Error(`page ${i + 1} did not enter: ${started.status} ${started.text}`);
    out.push(session);
  }
  return out;
}

export async function liveRelayScenario(
  nodes: readonly Daemon[],
  admin: string,
  options: { windowSec: number; pages?: number; perSecond?: number; log: (m: string) => void },
): Promise<LiveRelayFigures> {
  const pages = options.pages ?? 10;
  const perSecond = options.perSecond ?? 40;
  const roomId = 'relay-room';
  const setup = new Client(nodes[0]!.url, 4);
  const created = await setup.request('POST', '/api/rooms', {
    json: { room_id: roomId, name: 'Relay', waiting_room: 'off' },
    headers: { authorization: `Bearer ${admin}` },
  });
  setup.close();
  if (created.status !== 201) throw new Error(`creating ${roomId}: ${created.status} ${created.text}`);
  const owner = await roomOwner(nodes, roomId, admin);
  const others = nodes.filter((n) => n !== owner);
  const front = others[0]!;
  const spreading = nodes.length >= 3;
  const client = new Client(owner.url, 4);
  const all = await sessions(client, owner, roomId, admin, (spreading ? 3 : 2) * pages);
  client.close();
  const url = (daemon: Daemon, session: string) =>
    `${daemon.url.replace(/^http/, 'ws')}/room/${roomId}/live?session=${encodeURIComponent(session)}`;
  const direct = all.slice(0, pages).map((s) => new Page(url(owner, s)));
  const relayed = all.slice(pages, 2 * pages).map((s) => new Page(url(front, s)));
  const order = [owner, ...others];
  const spread = all.slice(2 * pages).map((s, i) => new Page(url(order[i % order.length]!, s)));
  await Promise.all([...direct, ...relayed, ...spread].map((p) => p.opened));
  await sleep(500);
  options.log(
    `cluster: ${pages} pages straight to ${owner.name}, ${pages} through ${front.name}` +
      (spreading ? `, ${pages} spread over the ${nodes.length} nodes` : ''),
  );

  const cpu = () => nodes.reduce((sum, n) => sum + (cpuSecondsOf(n.pid) ?? 0), 0);
  const answered = (set: readonly Page[]) => set.reduce((n, p) => n + p.answers, 0);
  const zero = () => ({ cpu: 0, answers: 0, sec: 0, sent: 0 });
  const totals = { direct: zero(), relayed: zero(), spread: zero() };
  const kinds = spreading ? (['direct', 'relayed', 'spread'] as const) : (['direct', 'relayed'] as const);
  const sets = { direct, relayed, spread };
  const slices = 4;
  const sliceMs = (options.windowSec * 1000) / (2 * slices);
  for (let slice = 0; slice < kinds.length * slices; slice++) {
    const kind = kinds[slice % kinds.length]!;
    const set = sets[kind];
    const answers0 = answered(set);
    const cpu0 = cpu();
    const t0 = performance.now();
    const ticks = Math.round((sliceMs / 1000) * perSecond);
    for (let k = 0; k < ticks; k++) {
      const wait = t0 + (k * 1000) / perSecond - performance.now();
      if (wait > 0) await sleep(wait);
      for (const page of set) page.send();
    }
    // The last answers come back.
    await sleep(200);
    totals[kind].cpu += cpu() - cpu0;
    totals[kind].sec += (performance.now() - t0) / 1000;
    totals[kind].answers += answered(set) - answers0;
    totals[kind].sent += ticks * set.length;
  }
  for (const page of [...direct, ...relayed, ...spread]) page.close();
  const us = (t: typeof totals.direct) => (t.answers > 0 ? (t.cpu * 1e6) / t.answers : Number.NaN);
  const sum = (pick: (t: typeof totals.direct) => number) =>
    pick(totals.direct) + pick(totals.relayed) + pick(totals.spread);
  return {
    pages,
    perSecond,
    nodes: nodes.length,
    windowSec: sum((t) => t.sec),
    directPerSec: totals.direct.answers / totals.direct.sec,
    relayedPerSec: totals.relayed.answers / totals.relayed.sec,
    directUsPerRoundTrip: us(totals.direct),
    relayedUsPerRoundTrip: us(totals.relayed),
    spreadPerSec: spreading ? totals.spread.answers / totals.spread.sec : null,
    spreadUsPerRoundTrip: spreading ? us(totals.spread) : null,
    threeVsOne: spreading ? us(totals.spread) / us(totals.direct) : null,
    usPerRelayedMessage: (us(totals.relayed) - us(totals.direct)) / 2,
    lost: sum((t) => t.sent) - sum((t) => t.answers),
  };
}
