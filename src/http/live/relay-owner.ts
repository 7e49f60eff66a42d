// Issue 35 point 3, the owner's side of a relayed live socket. The owner verifies and authorizes
// the presented session exactly as for a socket of its own (`sessionHolder`), and the hub gets an
// Outbox whose sends publish to the front node: it does not know the difference. A connection is
// found by its front node (the channel's signed sender) and its id, so no node can speak for
// another's connections. A front not heard from for `relaySilenceMs` (dead, frozen, cut from NATS)
// has its connections closed here, as a page whose socket dropped: she leaves after the grace.
import type { BusSubscription } from '../../engine/cluster/bus.js';
import type { NodeChannel, NodeMessage } from '../../engine/cluster/node-channel.js';
import type { Clock, Scheduler } from '../../engine/clock.js';
import type { LiveHub } from '../../engine/live/live-hub.js';
import type { LiveSession, Outbox } from '../../engine/live/outbox.js';
import type { MeetingService } from '../../engine/meetings/meeting-service.js';
import type { SessionClaims, TokenService } from '../../engine/tokens/token-service.js';
import type { ServerMessage } from '../../protocol/live.js';
import { sessionHolder } from '../room/session.js';
import { parseClientMessage } from './client-messages.js';
import {
  checkSubject,
  closePayload,
  connIdPattern,
  frame,
  inSubject,
  json,
  openSubject,
  outSubject,
  ownerGoneCode,
  parseJson,
  relayCheckMs,
  relaySilenceMs,
  unframe,
  type OpenAnswer,
} from './relay-wire.js';

export interface RelayOwnerDeps {
  readonly channel: NodeChannel;
  readonly tokens: Pick<TokenService, 'verifySession'>;
  readonly meetings: Pick<MeetingService, 'participant'>;
  readonly live: Pick<LiveHub, 'connect'>;
  /** The main room of `roomId`'s family when this node serves it now; null otherwise. */
  readonly servedHere: (roomId: string) => Promise<string | null>;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
}

interface Relayed {
  readonly front: string;
  readonly conn: string;
  readonly mainRoomId: string;
  readonly openedAt: number;
  /** Until the front says the upgrade is done: the claims the open verified. */
  claims: SessionClaims | null;
  session: LiveSession | null;
  closed: boolean;
}

export class RelayOwner {
  private readonly relayed = new Map<string, Relayed>();
  private readonly heard = new Map<string, number>();
  private readonly subscriptions: BusSubscription[] = [];
  private readonly encoded = new WeakMap<ServerMessage, Buffer>();
  private timer: unknown = null;

  constructor(private readonly deps: RelayOwnerDeps) {}

  /** Serves this node's relay subjects; the caller flushes the channel before the node registers. */
  start(): void {
    const self = this.deps.channel.nodeId;
    this.subscriptions.push(
      this.deps.channel.serve(openSubject(self), (message) => this.open(message)),
      this.deps.channel.serve(checkSubject(self), async (message) => this.check(message)),
      this.deps.channel.subscribe(inSubject(self), (message) => this.incoming(message)),
    );
  }

  /** The room was lost (not renewed, fenced, or a frozen owner waking): its relayed pages reconnect, to its new owner. */
  dropRoom(mainRoomId: string): void {
    for (const relayed of [...this.relayed.values()])
      if (relayed.mainRoomId === mainRoomId) this.end(relayed, ownerGoneCode, 'room moved', true);
  }

  /** This node stops: every relayed page reconnects elsewhere (its front node lives on). */
  close(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.close();
    for (const relayed of [...this.relayed.values()]) this.end(relayed, ownerGoneCode, 'room moved', true);
    if (this.timer !== null) this.deps.scheduler.clearTimeout(this.timer);
    this.timer = null;
  }

  private async open(message: NodeMessage): Promise<Uint8Array> {
    const request = parseJson(message.body) as { conn?: unknown; room?: unknown; session?: unknown } | null;
    const refuse = (refused: 'unauthorized' | 'elsewhere') => json({ ok: false, refused } satisfies OpenAnswer);
    if (
      typeof request?.conn !== 'string' ||
      !connIdPattern.test(request.conn) ||
      typeof request.room !== 'string' ||
      typeof request.session !== 'string'
    )
      return refuse('unauthorized');
    const mainRoomId = await this.deps.servedHere(request.room);
    if (mainRoomId === null) return refuse('elsewhere');
    const claims = request.session === '' ? null : await this.deps.tokens.verifySession(request.session);
    if (!claims || !sessionHolder(this.deps.meetings, claims, request.room)) return refuse('unauthorized');
    const key = `${message.from} ${request.conn}`;
    if (this.relayed.has(key)) return refuse('unauthorized');
    this.hear(message.from);
    this.relayed.set(key, {
      front: message.from,
      conn: request.conn,
      mainRoomId,
      openedAt: this.nowMs(),
      claims,
      session: null,
      closed: false,
    });
    this.sweepLater();
    return json({ ok: true } satisfies OpenAnswer);
  }

  /** The front's connections to this node: those it holds no more are named, so the front closes them. */
  private check(message: NodeMessage): Uint8Array {
    this.hear(message.from);
    const asked = parseJson(message.body);
    const conns = Array.isArray(asked) ? asked.filter((conn): conn is string => typeof conn === 'string') : [];
    return json(conns.filter((conn) => !this.relayed.has(`${message.from} ${conn}`)));
  }

  private incoming(message: NodeMessage): void {
    this.hear(message.from);
    const parts = unframe(message.body);
    if (!parts) return;
    const relayed = this.relayed.get(`${message.from} ${parts.conn}`);
    if (!relayed) {
      // A frame for a connection this node does not hold (it was dropped, or this node restarted): the page goes.
      if (parts.kind !== 'x')
        this.deps.channel.publish(
          outSubject(message.from),
          frame('c', parts.conn, closePayload(ownerGoneCode, 'room moved')),
        );
      return;
    }
    switch (parts.kind) {
      case 's':
        return this.begin(relayed);
      case 'f':
        return relayed.session?.receive(parseClientMessage(parts.payload.toString('utf8')));
      case 'b':
        return relayed.session?.receive({ ok: false, message: 'messages are JSON text frames' });
      case 'x':
        return this.end(relayed, 1000, '', false);
    }
  }

  /** The front upgraded the socket: the hub takes the connection as one of its own. */
  private begin(relayed: Relayed): void {
    const claims = relayed.claims;
    if (claims === null || relayed.closed) return;
    relayed.claims = null;
    const outbox: Outbox = {
      send: (message) => {
        if (!relayed.closed)
          this.deps.channel.publish(outSubject(relayed.front), frame('m', relayed.conn, this.encode(message)));
      },
      close: (code, reason) => this.end(relayed, code, reason, true),
    };
    relayed.session = this.deps.live.connect(claims, outbox);
  }

  /** Ends a relayed connection once: the front is told (unless it told us), the hub hears it closed. */
  private end(relayed: Relayed, code: number, reason: string, tellFront: boolean): void {
    if (relayed.closed) return;
    relayed.closed = true;
    this.relayed.delete(`${relayed.front} ${relayed.conn}`);
    if (tellFront)
      this.deps.channel.publish(outSubject(relayed.front), frame('c', relayed.conn, closePayload(code, reason)));
    // As a socket's close event: after the close, never inside the hub's own call.
    const session = relayed.session;
    if (session) queueMicrotask(() => session.closed());
  }

  private encode(message: ServerMessage): Buffer {
    let bytes = this.encoded.get(message);
    if (bytes === undefined) this.encoded.set(message, (bytes = Buffer.from(JSON.stringify(message), 'utf8')));
    return bytes;
  }

  private hear(front: string): void {
    this.heard.set(front, this.nowMs());
  }

  /** While connections are relayed: those of a silent front, and opens never started, end. */
  private sweepLater(): void {
    if (this.timer !== null) return;
    this.timer = this.deps.scheduler.setTimeout(() => {
      this.timer = null;
      const now = this.nowMs();
      for (const relayed of [...this.relayed.values()]) {
        const silent = now - (this.heard.get(relayed.front) ?? 0) > relaySilenceMs;
        const neverStarted = relayed.claims !== null && now - relayed.openedAt > relaySilenceMs;
        if (silent || neverStarted) this.end(relayed, ownerGoneCode, 'room moved', true);
      }
      for (const [front, at] of this.heard) if (now - at > relaySilenceMs) this.heard.delete(front);
      if (this.relayed.size > 0) this.sweepLater();
    }, relayCheckMs);
  }

  private nowMs(): number {
    return this.deps.clock.nowMs?.() ?? this.deps.clock.now().getTime();
  }
}
