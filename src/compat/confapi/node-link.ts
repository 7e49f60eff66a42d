// Issue 35 point 3: the meeting API on every node of a cluster. A call is verified (checksum,
// tenant, parameters) by the node it reached; what only a room's owner can do (its live state in
// memory, the writes the epoch fence lets through) crosses the signed channel to that owner on
// `meet.node.<id>.compat`, typed, and the owner's answer is rendered by the front node as its own.
import type { NodeChannel } from '../../engine/cluster/node-channel.js';
import type { Whereabouts } from '../../engine/cluster/ownership.js';
import { LeaseLostError } from '../../engine/cluster/leases.js';
import type { LiveAttendee } from '../live-view.js';
import type { AsyncCompatStore } from './async-store.js';
import type { Answer, ForwardedCall, OwnerRoute } from './context.js';
import { ConfapiError, confapiErrors, failure, type ConfapiErrorKey } from './errors.js';
import type { LiveState } from './meetings.js';

/** The subject a node serves the meeting API's messages on. */
export const compatSubject = (nodeId: string): string => `meet.node.${nodeId}.compat`;

/** How long a call waits for its owner (an `end` closes the room and queues callbacks there). */
export const callTimeoutMs = 5000;
/** How long getMeetingInfo waits for an owner's live counts before it answers from the last snapshot. */
export const liveTimeoutMs = 500;

/** The calls that change a meeting's live state or read what only its owner holds: run by the owner. */
export const ownerCalls: ReadonlySet<string> = new Set(['create', 'join', 'end', 'sendChatMessage']);

type Message =
  | ({ readonly kind: 'call' } & ForwardedCall)
  | { readonly kind: 'live'; readonly roomId: string; readonly internalId: string };

type Reply =
  | { readonly answer: Answer }
  | { readonly failure: { readonly key: string; readonly message: string } }
  | { readonly live: WireLive }
  /** The asked node does not serve the room (any more): the asker looks again. */
  | { readonly elsewhere: true };

interface WireLive {
  readonly running: boolean;
  readonly attendees: readonly LiveAttendee[];
  readonly customData?: readonly (readonly [string, readonly (readonly [string, string])[]])[];
}

export interface NodeLinkDeps {
  readonly channel: Pick<NodeChannel, 'request' | 'serve' | 'nodeId'>;
  /** Where a main room is served (RoomOwnership.where: claims it when it may be this node's). */
  readonly where: (roomId: string) => Promise<Whereabouts>;
}

/** What the owner runs for a message (build.ts wires them to the handlers and CompatMeetings). */
export interface OwnerSide {
  /** Runs a verified call here, never forwarding it again. */
  run(call: ForwardedCall): Promise<Answer>;
  /** The live state of an open meeting of a room served here; null when no such meeting is open. */
  live(roomId: string, internalId: string): Promise<LiveState | null>;
}

const encode = (value: Message | Reply): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');

function decodeReply(bytes: Uint8Array): Reply {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as Reply;
}

function toWire(live: LiveState): WireLive {
  return {
    running: live.running,
    attendees: live.attendees,
    ...(live.customData ? { customData: [...live.customData] } : {}),
  };
}

function fromWire(live: WireLive): LiveState {
  return {
    running: live.running === true,
    attendees: Array.isArray(live.attendees) ? live.attendees : [],
    ...(Array.isArray(live.customData) ? { customData: new Map(live.customData) } : {}),
  };
}

/** A message read from the channel (signed by a node): its shape is still checked before use. */
function readMessage(bytes: Uint8Array): Message | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string';
  if (m.kind === 'live' && text(m.roomId) && text(m.internalId))
    return { kind: 'live', roomId: m.roomId, internalId: m.internalId };
  const pairs = m.params;
  if (
    m.kind === 'call' &&
    text(m.call) &&
    text(m.tenantId) &&
    (m.xmlBody === null || text(m.xmlBody)) &&
    Array.isArray(pairs) &&
    pairs.every((p) => Array.isArray(p) && p.length === 2 && text(p[0]) && text(p[1]))
  )
    return {
      kind: 'call',
      call: m.call,
      tenantId: m.tenantId,
      params: pairs as [string, string][],
      xmlBody: m.xmlBody,
    };
  return null;
}

/** The meeting API's side of the signed channel: asks owners, and answers as one. */
export class NodeLink {
  /** The last live state an owner answered, by internal meeting id: what getMeetingInfo falls back to. */
  private readonly snapshots = new Map<string, LiveState>();

  constructor(private readonly deps: NodeLinkDeps) {}

  /** Serves this node's subject; only messages the channel verified reach here. */
  serve(owner: OwnerSide): { close(): void } {
    return this.deps.channel.serve(compatSubject(this.deps.channel.nodeId), async (message) => {
      const reply = await this.answer(owner, readMessage(message.body));
      return encode(reply);
    });
  }

  private async answer(owner: OwnerSide, message: Message | null): Promise<Reply> {
    if (message === null) return { failure: { key: 'validationError', message: 'Request not recognized' } };
    try {
      if (message.kind === 'live') {
        const live = await owner.live(message.roomId, message.internalId);
        return live === null ? { elsewhere: true } : { live: toWire(live) };
      }
      return { answer: await owner.run(message) };
    } catch (err) {
      if (err instanceof LeaseLostError) return { elsewhere: true };
      if (err instanceof ConfapiError) return { failure: { key: err.key, message: err.message } };
      throw err;
    }
  }

  /**
   * Runs `call` on the owner of `roomId` when that is another node and answers its result; null
   * when this node serves the room (or nobody does): the caller runs it here. An owner that does
   * not answer (dead, cut off, or no longer the owner) makes it look once more, then fail with
   * `meetingElsewhere`, never an error of its own.
   */
  async onOwner(roomId: string, call: ForwardedCall): Promise<Answer | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const where = await this.deps.where(roomId);
      if (where.mine || where.owner === null) return null;
      const reply = await this.ask(where.owner, { kind: 'call', ...call }, callTimeoutMs);
      if (reply === null || 'elsewhere' in reply || 'live' in reply) continue;
      if ('failure' in reply) throw ownerFailure(reply.failure);
      return reply.answer;
    }
    throw failure('meetingElsewhere');
  }

  /**
   * The live state of a meeting whose room another node serves, asked of that node (a short
   * wait); null when this node serves it (the caller reads its own memory). Unanswered, the last
   * state an owner gave, else `fallback` (what the store says).
   */
  async liveElsewhere(
    roomId: string,
    internalId: string,
    fallback: () => Promise<LiveState>,
  ): Promise<LiveState | null> {
    const where = await this.deps.where(roomId);
    if (where.mine) return null;
    if (where.owner !== null) {
      const reply = await this.ask(where.owner, { kind: 'live', roomId, internalId }, liveTimeoutMs);
      if (reply !== null && 'live' in reply) {
        const live = fromWire(reply.live);
        this.snapshots.set(internalId, live);
        return live;
      }
    }
    return this.snapshots.get(internalId) ?? fallback();
  }

  /** Forgets the snapshots of meetings no longer open. */
  keepOnly(open: ReadonlySet<string>): void {
    for (const id of this.snapshots.keys()) if (!open.has(id)) this.snapshots.delete(id);
  }

  private async ask(node: string, message: Message, timeoutMs: number): Promise<Reply | null> {
    try {
      return decodeReply((await this.deps.channel.request(compatSubject(node), encode(message), timeoutMs)).body);
    } catch {
      // No responders, a timeout, NATS away (BusUnanswered), or an answer that did not verify: not reachable now.
      return null;
    }
  }
}

/** The owner's refusal, as the front node's own (a key the owner named, from the one table). */
function ownerFailure(reply: { readonly key: string; readonly message: string }): ConfapiError {
  if (!Object.hasOwn(confapiErrors, reply.key)) return failure('internalError');
  return failure(reply.key as ConfapiErrorKey, String(reply.message));
}

/** The route of build.ts: a call of `ownerCalls` on an open meeting goes to its room's owner. */
export function ownerRoute(link: NodeLink, store: Pick<AsyncCompatStore, 'openMeeting'>): OwnerRoute {
  return {
    async answerOf(call) {
      if (!ownerCalls.has(call.call)) return null;
      const meetingId = call.params.find(([name]) => name === 'meetingID')?.[1];
      // No meetingID, or no open meeting of it: the handler here answers (create makes it, the others refuse).
      const meeting = meetingId === undefined ? null : await store.openMeeting(call.tenantId, meetingId);
      return meeting ? link.onOwner(meeting.roomId, call) : null;
    },
  };
}
