// Issue 35: what one node tells another, signed. SERVICE_NATS_URL carries no credentials, so
// whoever reaches NATS could publish; a node believes a message only when it is signed with the
// cluster's key (HKDF of the signing key in PostgreSQL, which only the nodes read), bound to its
// subject (a request's answer to that request), fresh, and not seen before. What fails any of
// these is dropped unread and counted; the sender's node id is part of what is signed.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { BusSubscription, ClusterBus } from './bus.js';

/** A message older (or newer, by the nodes' clocks) than this is refused; seen ids are kept this long. */
export const freshForMs = 5000;

const macBytes = 32;
const idBytes = 16;
const version = 1;
/** mac, version, time (float64), id, node id's length: then the node id and the body. */
const headBytes = macBytes + 1 + 8 + idBytes + 1;
const maxNodeIdBytes = 64;

export interface NodeMessage {
  /** The node that signed it. */
  readonly from: string;
  readonly body: Uint8Array;
}

/** Why a message was dropped: for the counters and the log, never with its content. */
export type RefusedReason = 'malformed' | 'forged' | 'stale' | 'replayed';

/** The channel's key: the cluster's signing key is for tokens, so messages get a key of their own from it. */
export function channelKey(signingKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', signingKey, new Uint8Array(0), 'meet cluster messages v1', 32));
}

/** The ids of the messages of the last one or two windows: two sets swapped each window, no timer. */
class SeenIds {
  private current = new Set<string>();
  private previous = new Set<string>();
  private since = 0;

  /** True when `id` was seen within the window; remembers it otherwise. */
  seen(id: string, nowMs: number): boolean {
    if (nowMs - this.since >= freshForMs) {
      this.previous = nowMs - this.since >= 2 * freshForMs ? new Set() : this.current;
      this.current = new Set();
      this.since = nowMs;
    }
    if (this.current.has(id) || this.previous.has(id)) return true;
    this.current.add(id);
    return false;
  }
}

export class NodeChannel {
  private readonly seenIds = new SeenIds();
  private readonly nodeIdBytes: Buffer;
  /** Messages dropped, by reason, since the start. */
  readonly refused: Record<RefusedReason, number> = { malformed: 0, forged: 0, stale: 0, replayed: 0 };

  constructor(
    private readonly bus: ClusterBus,
    private readonly key: Uint8Array,
    readonly nodeId: string,
    private readonly clock: Clock,
    private readonly onRefused: (reason: RefusedReason, subject: string) => void = () => undefined,
  ) {
    this.nodeIdBytes = Buffer.from(nodeId, 'utf8');
    if (this.nodeIdBytes.length === 0 || this.nodeIdBytes.length > maxNodeIdBytes)
      throw new RangeError('a node id has 1 to 64 bytes');
  }

  /** Asks whoever serves `subject`; the answer must be signed for this very request. `BusUnanswered` otherwise. */
  async request(subject: string, body: Uint8Array, timeoutMs: number): Promise<NodeMessage> {
    const sent = this.seal(`req ${subject}`, body);
    const answer = await this.bus.request(subject, sent.bytes, timeoutMs);
    const opened = this.open(`rep ${sent.id}`, answer, false);
    if (typeof opened === 'string') {
      this.refuse(opened, subject);
      throw new Error(`the answer on ${subject} was refused: ${opened}`);
    }
    return opened;
  }

  /** Serves `subject`; only requests that verify reach `handler`, and its answer is signed for that request. */
  serve(subject: string, handler: (message: NodeMessage) => Promise<Uint8Array>): BusSubscription {
    return this.bus.serve(subject, async (data) => {
      const opened = this.open(`req ${subject}`, data, true);
      if (typeof opened === 'string') {
        this.refuse(opened, subject);
        throw new Error(opened);
      }
      const answer = await handler(opened);
      return this.seal(`rep ${idOf(data)}`, answer).bytes;
    });
  }

  publish(subject: string, body: Uint8Array): void {
    this.bus.publish(subject, this.seal(`pub ${subject}`, body).bytes);
  }

  subscribe(subject: string, handler: (message: NodeMessage) => void): BusSubscription {
    return this.bus.subscribe(subject, (data) => {
      const opened = this.open(`pub ${subject}`, data, true);
      if (typeof opened === 'string') this.refuse(opened, subject);
      else handler(opened);
    });
  }

  /** See ClusterBus.flush. */
  flush(): Promise<void> {
    return this.bus.flush();
  }

  private refuse(reason: RefusedReason, subject: string): void {
    this.refused[reason] += 1;
    this.onRefused(reason, subject);
  }

  private seal(context: string, body: Uint8Array): { bytes: Uint8Array; id: string } {
    const bytes = Buffer.allocUnsafe(headBytes + this.nodeIdBytes.length + body.length);
    bytes[macBytes] = version;
    bytes.writeDoubleBE(this.nowMs(), macBytes + 1);
    randomBytes(idBytes).copy(bytes, macBytes + 9);
    bytes[headBytes - 1] = this.nodeIdBytes.length;
    this.nodeIdBytes.copy(bytes, headBytes);
    bytes.set(body, headBytes + this.nodeIdBytes.length);
    this.mac(context, bytes).copy(bytes, 0);
    return { bytes, id: idOf(bytes) };
  }

  /** The message, or why it is refused. */
  private open(context: string, data: Uint8Array, once: boolean): NodeMessage | RefusedReason {
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.length < headBytes || bytes[macBytes] !== version) return 'malformed';
    const nodeIdLength = bytes[headBytes - 1]!;
    if (nodeIdLength === 0 || nodeIdLength > maxNodeIdBytes || bytes.length < headBytes + nodeIdLength)
      return 'malformed';
    // The signature first, in constant time: nothing of an unsigned message is read further.
    if (!timingSafeEqual(this.mac(context, bytes), bytes.subarray(0, macBytes))) return 'forged';
    const nowMs = this.nowMs();
    if (!(Math.abs(nowMs - bytes.readDoubleBE(macBytes + 1)) <= freshForMs)) return 'stale';
    if (once && this.seenIds.seen(idOf(bytes), nowMs)) return 'replayed';
    return {
      from: bytes.toString('utf8', headBytes, headBytes + nodeIdLength),
      body: bytes.subarray(headBytes + nodeIdLength),
    };
  }

  private mac(context: string, bytes: Buffer): Buffer {
    return createHmac('sha256', this.key).update(`${context}\0`).update(bytes.subarray(macBytes)).digest();
  }

  private nowMs(): number {
    return this.clock.nowMs?.() ?? this.clock.now().getTime();
  }
}

/** A sealed message's random id, as text. */
function idOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + macBytes + 9, idBytes).toString('hex');
}
