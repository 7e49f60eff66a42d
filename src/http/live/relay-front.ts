// Issue 35 point 3, the front node's side of a relayed live socket: the page's socket is accepted
// here (the same frame size limit and heartbeat as a socket of this node's own room) and its frames
// are published to the room's owner, whose messages come back on this node's one relay subject.
// A message is believed only from the connection's owner (the channel's signed sender). Each
// owner is asked every `relayCheckMs` which of this node's connections it still holds: those it
// dropped close, and all of them close when the owner is gone from NATS (killed) or silent for
// `relaySilenceMs` (frozen, cut off), so pages reconnect, with their jitter, to the room's new owner.
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import { BusUnanswered, type BusSubscription } from '../../engine/cluster/bus.js';
import type { NodeChannel, NodeMessage } from '../../engine/cluster/node-channel.js';
import type { Clock, Scheduler } from '../../engine/clock.js';
import {
  checkSubject,
  frame,
  inSubject,
  json,
  openSubject,
  outSubject,
  ownerGoneCode,
  parseJson,
  readClose,
  relayCheckMs,
  relaySilenceMs,
  unframe,
  type OpenAnswer,
  type OpenRequest,
} from './relay-wire.js';

export interface RelayFrontDeps {
  readonly channel: NodeChannel;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
}

/** What an open came to: a connection id to attach the socket to, or why not. */
export type Opened = { readonly conn: string } | 'unauthorized' | 'elsewhere' | 'unreachable';

interface FrontConn {
  readonly owner: string;
  readonly socket: WebSocket;
}

export class RelayFront {
  private readonly conns = new Map<string, FrontConn>();
  /** Per owner with connections here: when it last answered (or spoke). */
  private readonly heard = new Map<string, number>();
  private subscription: BusSubscription | null = null;
  private timer: unknown = null;

  constructor(private readonly deps: RelayFrontDeps) {}

  start(): void {
    this.subscription = this.deps.channel.subscribe(outSubject(this.deps.channel.nodeId), (message) =>
      this.outgoing(message),
    );
  }

  /** Asks `owner` to open a session for `session` in `roomId`; the owner verifies and authorizes it. */
  async open(owner: string, roomId: string, session: string): Promise<Opened> {
    const conn = randomBytes(16).toString('hex');
    let answer: NodeMessage;
    try {
      answer = await this.deps.channel.request(
        openSubject(owner),
        json({ conn, room: roomId, session } satisfies OpenRequest),
        relayCheckMs,
      );
    } catch {
      // No answer (BusUnanswered), or one the channel refused: the owner cannot be believed now.
      return 'unreachable';
    }
    if (answer.from !== owner) return 'unreachable';
    const opened = parseJson(answer.body) as OpenAnswer | null;
    if (opened?.ok === true) return { conn };
    return opened?.ok === false && opened.refused === 'elsewhere' ? 'elsewhere' : 'unauthorized';
  }

  /**
   * The upgraded socket of an opened connection: the owner starts the session (its welcome comes
   * back on this node's subject, subscribed long before), then every frame goes to it in order.
   */
  attach(conn: string, owner: string, socket: WebSocket): void {
    const publish = (kind: 's' | 'f' | 'b' | 'x', payload?: Uint8Array) =>
      this.deps.channel.publish(inSubject(owner), frame(kind, conn, payload));
    this.conns.set(conn, { owner, socket });
    // The owner just answered the open.
    this.heard.set(owner, this.nowMs());
    socket.on('message', (data, isBinary) => {
      if (socket.readyState !== socket.OPEN || !this.conns.has(conn)) return;
      if (isBinary) publish('b');
      else publish('f', Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]));
    });
    socket.on('close', () => {
      // Closed by the page (or its heartbeat): the owner is told; closed by the owner: it knows.
      if (this.conns.delete(conn)) publish('x');
    });
    publish('s');
    this.checkLater();
  }

  /** This node stops: nothing more is read. Its sockets are closed by the daemon (4503), each telling its owner. */
  close(): void {
    this.subscription?.close();
    this.subscription = null;
    if (this.timer !== null) this.deps.scheduler.clearTimeout(this.timer);
    this.timer = null;
  }

  private outgoing(message: NodeMessage): void {
    const parts = unframe(message.body);
    if (!parts) return;
    const held = this.conns.get(parts.conn);
    // Only the connection's owner speaks for it: another node (or a forger, refused by the channel) changes nothing.
    if (!held || held.owner !== message.from) return;
    this.heard.set(held.owner, this.nowMs());
    if (parts.kind === 'm') {
      if (held.socket.readyState === held.socket.OPEN) held.socket.send(parts.payload, { binary: false });
    } else if (parts.kind === 'c') {
      const { code, reason } = readClose(parts.payload);
      this.drop(parts.conn, code, reason);
    }
  }

  private drop(conn: string, code: number, reason: string): void {
    const held = this.conns.get(conn);
    if (!held) return;
    this.conns.delete(conn);
    const socket = held.socket;
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
  }

  private dropOwner(owner: string): void {
    this.heard.delete(owner);
    for (const [conn, held] of [...this.conns]) if (held.owner === owner) this.drop(conn, ownerGoneCode, 'room moved');
  }

  private checkLater(): void {
    if (this.timer !== null) return;
    this.timer = this.deps.scheduler.setTimeout(() => {
      this.timer = null;
      void this.checkOwners().finally(() => {
        if (this.conns.size > 0 && this.subscription !== null) this.checkLater();
      });
    }, relayCheckMs);
  }

  /** Each owner is asked, at once, which of this node's connections it no longer holds. */
  private async checkOwners(): Promise<void> {
    const byOwner = new Map<string, string[]>();
    for (const [conn, held] of this.conns) {
      const list = byOwner.get(held.owner);
      if (list) list.push(conn);
      else byOwner.set(held.owner, [conn]);
    }
    for (const owner of this.heard.keys()) if (!byOwner.has(owner)) this.heard.delete(owner);
    await Promise.all([...byOwner].map(([owner, conns]) => this.checkOwner(owner, conns)));
  }

  private async checkOwner(owner: string, conns: readonly string[]): Promise<void> {
    try {
      const answer = await this.deps.channel.request(checkSubject(owner), json(conns), relayCheckMs);
      if (answer.from !== owner) return;
      this.heard.set(owner, this.nowMs());
      const gone = parseJson(answer.body);
      if (!Array.isArray(gone)) return;
      for (const conn of gone)
        if (typeof conn === 'string' && this.conns.get(conn)?.owner === owner)
          this.drop(conn, ownerGoneCode, 'room moved');
    } catch (err) {
      // Nobody serves the owner's subjects: its process is gone from NATS (killed, stopped).
      if (err instanceof BusUnanswered && err.reason === 'no_responders') return this.dropOwner(owner);
      // No answer: a frozen or cut-off owner keeps its pages until the bound (a busy one answers late, not never).
      if (this.nowMs() - (this.heard.get(owner) ?? 0) > relaySilenceMs) this.dropOwner(owner);
    }
  }

  private nowMs(): number {
    return this.deps.clock.nowMs?.() ?? this.deps.clock.now().getTime();
  }
}
