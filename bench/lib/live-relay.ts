import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import WebSocket from 'ws';
import { Client } from './http.js';
import { sleep } from './keeper.js';
import { cpuSecondsOf } from './proc.js';
import type { Daemon } from './servers.js';

/**
 * The CPU of a relayed live message (issue 35 point 3): two nodes on one PostgreSQL and one
 * nats-server, a room owned by one of them. `pages` moderators' sockets straight to the owner and
 * as many through the other node (the front) each send `perSecond` frames the hub answers (an
 * unknown type: parsed, counted against the socket's allowance, answered with an error), so each
 * round trip is one message each way. Direct and relayed slices alternate; the figure is what
 * both nodes' CPU per round trip relayed costs beyond the owner's per round trip direct, per message.
 */
export interface LiveRelayFigures {
  readonly pages: number;
  readonly perSecond: number;
  readonly windowSec: number;
  /** Answers received per second, direct and relayed. */
  readonly directPerSec: number;
  readonly relayedPerSec: number;
  /** Both nodes' CPU per round trip (µs): straight to the owner, and through the front. */
  readonly directUsPerRoundTrip: number;
  readonly relayedUsPerRoundTrip: number;
  /** (relayed − direct) / 2: what relaying adds to one message, one way, both nodes together. */
  readonly usPerRelayedMessage: number;
  readonly lost: number;
}

export const natsServerBin = '/usr/sbin/nats-server';

/** A nats-server on `port` of 127.0.0.1 (Debian's package), or null where it is not installed. */
export function startNatsServer(port: number): { stop(): void } | null {
  if (!existsSync(natsServerBin)) return null;
  const child = spawn(natsServerBin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  return { stop: () => child.kill('SIGKILL') };
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
  nodes: readonly [Daemon, Daemon],
  admin: string,
  options: { windowSec: number; pages?: number; perSecond?: number; log: (m: string) => void },
): Promise<LiveRelayFigures> {
  const pages = options.pages ?? 10;
  const perSecond = options.perSecond ?? 40;
  const roomId = 'relay-room';
  let [owner, front] = nodes;
  const setup = new Client(owner.url, 4);
  const created = await setup.request('POST', '/api/rooms', {
    json: { room_id: roomId, name: 'Relay', waiting_room: 'off' },
    headers: { authorization: `Bearer ${admin}` },
  });
  if (created.status !== 201) throw new Error(`creating ${roomId}: ${created.status} ${created.text}`);
  // The room's owner is its rendezvous successor: the node that does not answer 421.
  const probe = await setup.request('GET', `/room/${roomId}/waiting`);
  if (probe.status === 421) [owner, front] = [front, owner];
  setup.close();
  const client = new Client(owner.url, 4);
  const all = await sessions(client, owner, roomId, admin, 2 * pages);
  client.close();
  const url = (daemon: Daemon, session: string) =>
    `${daemon.url.replace(/^http/, 'ws')}/room/${roomId}/live?session=${encodeURIComponent(session)}`;
  const direct = all.slice(0, pages).map((s) => new Page(url(owner, s)));
  const relayed = all.slice(pages).map((s) => new Page(url(front, s)));
  await Promise.all([...direct, ...relayed].map((p) => p.opened));
  await sleep(500);
  options.log(`cluster: ${pages} pages straight to ${owner.name}, ${pages} through ${front.name}`);

  const cpu = () => (cpuSecondsOf(owner.pid) ?? 0) + (cpuSecondsOf(front.pid) ?? 0);
  const answered = (set: readonly Page[]) => set.reduce((n, p) => n + p.answers, 0);
  const totals = { direct: { cpu: 0, answers: 0, sec: 0, sent: 0 }, relayed: { cpu: 0, answers: 0, sec: 0, sent: 0 } };
  const slices = 4;
  const sliceMs = (options.windowSec * 1000) / (2 * slices);
  for (let slice = 0; slice < 2 * slices; slice++) {
    const kind = slice % 2 === 0 ? 'direct' : 'relayed';
    const set = kind === 'direct' ? direct : relayed;
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
  for (const page of [...direct, ...relayed]) page.close();
  const us = (t: typeof totals.direct) => (t.answers > 0 ? (t.cpu * 1e6) / t.answers : Number.NaN);
  return {
    pages,
    perSecond,
    windowSec: totals.direct.sec + totals.relayed.sec,
    directPerSec: totals.direct.answers / totals.direct.sec,
    relayedPerSec: totals.relayed.answers / totals.relayed.sec,
    directUsPerRoundTrip: us(totals.direct),
    relayedUsPerRoundTrip: us(totals.relayed),
    usPerRelayedMessage: (us(totals.relayed) - us(totals.direct)) / 2,
    lost: totals.direct.sent + totals.relayed.sent - totals.direct.answers - totals.relayed.answers,
  };
}
