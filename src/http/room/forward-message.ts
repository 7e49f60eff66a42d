// Issue 35 point 3: a room's HTTP request as one node hands it to the room's owner over the signed
// node channel, and the owner's answer. What crosses is only what the routes read: the method, the
// path with its query, a short list of headers, the body, and (outside the headers) the client's IP,
// scheme and host as the forwarding node resolved them under its own trust rule. The client's own
// X-Forwarded-* and Forwarded headers never cross: the owner must not read them again under
// another rule. The owner believes these fields only on the inter-node path (`interNodeAddress`).
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';

/** The subject on which a node serves the room requests forwarded to it. */
export const forwardSubject = (nodeId: string): string => `meet.node.${nodeId}.http`;

/**
 * The socket address of a forwarded request as the owner injects it. No socket can have it (a
 * socket's address is an IP), so the trust rule below believes the forwarding node's fields on
 * that path alone, and the gate knows a request that must never be forwarded again.
 */
export const interNodeAddress = 'meet-cluster-forward';

/** The request headers the routes read; every other header stays on the node the client talked to. */
export const forwardedHeaders = [
  'accept',
  'accept-language',
  'authorization',
  'content-type',
  'cookie',
  'origin',
  'referer',
  'user-agent',
  'x-csrf-token',
  'x-request-id',
] as const;

/** Answer headers the front node sets itself (framing, its own node), not copied from the owner's. */
const ownAnswerHeaders = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
  'x-meet-node',
]);

/** Methods a room's routes answer; anything else is no forwarded request. */
const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A forwarded request is never forwarded again: a second hop is refused. */
export const maxHops = 1;

export interface ForwardedRequest {
  readonly method: string;
  /** The path with its query, as the client sent it. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** What the forwarding node resolved of the client: her address, her scheme, the host she asked. */
  readonly ip: string;
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly hops: number;
  readonly body: Uint8Array;
}

export interface ForwardedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: Uint8Array;
}

/** Fastify's trustProxy: the configured proxies, and the inter-node path (a forwarded request's socket) on its first hop. */
export function trustRule(trustedProxies: readonly string[]): (address: string, hop: number) => boolean {
  const trusted = proxyAddr.compile([...trustedProxies]);
  return (address, hop) => (hop === 0 && address === interNodeAddress) || trusted(address, hop);
}

/** The answer headers the front node passes on (Set-Cookie included). */
export function answerHeaders(
  headers: Readonly<Record<string, string | number | readonly string[] | undefined>>,
): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || ownAnswerHeaders.has(name.toLowerCase())) continue;
    kept[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return kept;
}

/** A JSON head, then the body: [4 bytes: the head's length][head][body]. */
function frame(head: unknown, body: Uint8Array): Uint8Array {
  const json = Buffer.from(JSON.stringify(head), 'utf8');
  const bytes = Buffer.allocUnsafe(4 + json.length + body.length);
  bytes.writeUInt32BE(json.length, 0);
  json.copy(bytes, 4);
  bytes.set(body, 4 + json.length);
  return bytes;
}

function unframe(bytes: Uint8Array): { head: Record<string, unknown>; body: Uint8Array } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 4) throw new MalformedForward('no head');
  const length = buffer.readUInt32BE(0);
  if (buffer.length < 4 + length) throw new MalformedForward('a short head');
  const head: unknown = JSON.parse(buffer.toString('utf8', 4, 4 + length));
  if (typeof head !== 'object' || head === null || Array.isArray(head)) throw new MalformedForward('no head');
  return { head: head as Record<string, unknown>, body: buffer.subarray(4 + length) };
}

/** A signed message that is no forwarded request of this version (a node of another release). */
export class MalformedForward extends Error {
  override readonly name = 'MalformedForward';
}

export const encodeRequest = ({ body, ...head }: ForwardedRequest): Uint8Array => frame(head, body);

/** The request a node forwarded, checked field by field: what is not as a node sends it is refused. */
export function decodeRequest(bytes: Uint8Array, bodyLimit: number): ForwardedRequest {
  const { head, body } = unframe(bytes);
  const { method, url, headers, ip, scheme, host, hops } = head;
  if (typeof method !== 'string' || !methods.has(method)) throw new MalformedForward('method');
  if (typeof url !== 'string' || !url.startsWith('/') || url.startsWith('//')) throw new MalformedForward('url');
  if (typeof ip !== 'string' || isIP(ip) === 0) throw new MalformedForward('ip');
  if (scheme !== 'http' && scheme !== 'https') throw new MalformedForward('scheme');
  if (typeof host !== 'string' || host.length > 255 || /[\s,]/.test(host)) throw new MalformedForward('host');
  if (typeof hops !== 'number' || !Number.isInteger(hops) || hops < 1 || hops > maxHops)
    throw new MalformedForward('hops');
  if (body.length > bodyLimit) throw new MalformedForward('body');
  if (typeof headers !== 'object' || headers === null) throw new MalformedForward('headers');
  const kept: Record<string, string> = {};
  for (const name of forwardedHeaders) {
    const value = (headers as Record<string, unknown>)[name];
    if (typeof value === 'string') kept[name] = value;
  }
  return { method, url, headers: kept, ip, scheme, host, hops, body };
}

export const encodeAnswer = ({ body, ...head }: ForwardedAnswer): Uint8Array => frame(head, body);

export function decodeAnswer(bytes: Uint8Array): ForwardedAnswer {
  const { head, body } = unframe(bytes);
  const { status, headers } = head;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    throw new MalformedForward('status');
  if (typeof headers !== 'object' || headers === null) throw new MalformedForward('headers');
  return { status, headers: answerHeaders(headers as Record<string, string | string[]>), body };
}
