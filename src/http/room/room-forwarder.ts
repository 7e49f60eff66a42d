// Issue 35 point 3: a room's HTTP request that reaches a node which does not own the room is run
// by the owner and answered as the owner answers (status, headers with Set-Cookie, body), over the
// signed node channel (subject `meet.node.<owner>.http`). The owner runs it with `app.inject`
// through its own listener, gate included, on the inter-node path (forward-message.ts): the
// client's IP, scheme and host are the forwarding node's, read from the signed message, never
// from a header a client sent; and a request on that path is never forwarded again.
import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { BusUnanswered, type BusSubscription } from '../../engine/cluster/bus.js';
import type { NodeChannel } from '../../engine/cluster/node-channel.js';
import { statusByCode } from '../errors.js';
import {
  answerHeaders,
  decodeAnswer,
  decodeRequest,
  encodeAnswer,
  encodeRequest,
  forwardedHeaders,
  forwardSubject,
  interNodeAddress,
  maxHops,
  type ForwardedAnswer,
  type ForwardedRequest,
} from './forward-message.js';

/**
 * How long the front node waits for the owner's answer. Long enough for a knock queued behind a
 * class's access-code checks (its cookie comes with the answer); a frozen owner costs this once.
 */
export const forwardTimeoutMs = 5000;

/**
 * The largest answer sent back: one NATS message (1 MB by default), with room to spare. The room
 * routes answer a few KB; a larger answer is replaced by a 500 rather than sent and refused.
 */
const maxAnswerBytes = 896 * 1024;

export interface ForwarderOptions {
  /** The listener's body limit: a larger body is refused here as the owner would refuse it (413). */
  readonly bodyLimit: number;
  readonly timeoutMs?: number;
  /** See `maxAnswerBytes` (a test makes it small). */
  readonly maxAnswerBytes?: number;
  /** A forward that got no answer, for the log (ids and the reason only). */
  readonly onUnanswered?: (owner: string, reason: string) => void;
}

/** Whether this request came from another node (the inter-node path): it is never forwarded again. */
export const cameFromNode = (request: FastifyRequest): boolean =>
  request.raw.socket?.remoteAddress === interNodeAddress;

/** Why a forward got no answer, in words for the 503 (nothing of the room, no node named). */
export function unansweredReason(err: unknown): string {
  if (err instanceof BusUnanswered) return err.reason.replace('_', ' ');
  return 'no valid answer';
}

const tooLargeToForward: ForwardedAnswer = {
  status: statusByCode.internal_error,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff' },
  body: Buffer.from(
    JSON.stringify({ error: { code: 'internal_error', message: 'the answer is too large to pass between nodes' } }),
  ),
};

export class RoomForwarder {
  private app: FastifyInstance | null = null;
  private readonly timeoutMs: number;

  constructor(
    private readonly channel: NodeChannel,
    private readonly options: ForwarderOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? forwardTimeoutMs;
  }

  /**
   * Serves this node's subject with `app`, the listener forwarded requests run through. The
   * daemon flushes the bus after it and only then registers, so no node forwards to it unheard.
   */
  serve(app: FastifyInstance): BusSubscription {
    this.app = app;
    const limit = this.options.maxAnswerBytes ?? maxAnswerBytes;
    return this.channel.serve(forwardSubject(this.channel.nodeId), async (message) => {
      const answer = encodeAnswer(await this.run(decodeRequest(message.body, this.options.bodyLimit)));
      return answer.length <= limit ? answer : encodeAnswer(tooLargeToForward);
    });
  }

  /** What the client sent, as the message to the owner (a body over the limit: Fastify's own 413). */
  async message(request: FastifyRequest, bodyParsed: boolean): Promise<ForwardedRequest> {
    const headers: Record<string, string> = {};
    for (const name of forwardedHeaders) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    let body: Uint8Array;
    if (bodyParsed) {
      // The rooms API is gated after its authentication, when Fastify has read the JSON body.
      body = request.body === undefined ? new Uint8Array(0) : Buffer.from(JSON.stringify(request.body), 'utf8');
      if (request.body === undefined) delete headers['content-type'];
    } else {
      body = request.method === 'GET' || request.method === 'HEAD' ? new Uint8Array(0) : await this.read(request.raw);
    }
    return {
      method: request.method,
      url: request.url,
      headers,
      ip: request.ip,
      scheme: request.protocol === 'https' ? 'https' : 'http',
      host: request.host,
      hops: maxHops,
      body,
    };
  }

  /** The owner's answer; BusUnanswered (or a refused answer) when none came. */
  async send(owner: string, message: ForwardedRequest): Promise<ForwardedAnswer> {
    try {
      const answer = await this.channel.request(forwardSubject(owner), encodeRequest(message), this.timeoutMs);
      return decodeAnswer(answer.body);
    } catch (err) {
      this.options.onUnanswered?.(owner, unansweredReason(err));
      throw err;
    }
  }

  /** Runs a forwarded request through this node's listener, on the inter-node path. */
  async run(request: ForwardedRequest): Promise<ForwardedAnswer> {
    if (!this.app) throw new Error('the forwarder serves no listener yet');
    const answer = await this.app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: {
        ...request.headers,
        host: request.host,
        // Believed on the inter-node path only (forward-message.ts `trustRule`); the client's own never crossed.
        'x-forwarded-for': request.ip,
        'x-forwarded-proto': request.scheme,
      },
      ...(request.body.length > 0 ? { payload: Buffer.from(request.body) } : {}),
      remoteAddress: interNodeAddress,
    });
    return { status: answer.statusCode, headers: answerHeaders(answer.headers), body: answer.rawPayload };
  }

  /** Sends `answer` to the client as this node's own. */
  reply(reply: FastifyReply, answer: ForwardedAnswer): FastifyReply {
    reply.code(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
    return reply.send(Buffer.from(answer.body));
  }

  private async read(raw: IncomingMessage): Promise<Uint8Array> {
    const limit = this.options.bodyLimit;
    const declared = raw.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of raw as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }
}
