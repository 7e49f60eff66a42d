// Issue 35 point 3: a live socket that reached a node other than its room's owner (the "front"
// node) is relayed to the owner over the signed node channel. What the two sides say, and how
// often they make sure the other is still there. Every message goes through NodeChannel: signed
// with the cluster's key, bound to its subject, fresh, never replayed, and it names its sender,
// so a connection is found by (sender node, connection id): the id alone is no capability.
import { aliveWithinMs, beatEveryMs } from '../../engine/cluster/nodes.js';

/** Front → owner, request: open a relayed session for a presented session token. */
export const openSubject = (owner: string) => `meet.node.${owner}.live.open`;
/** Front → owner, request: the front's connections to that owner, which the owner answers with those it no longer holds. */
export const checkSubject = (owner: string) => `meet.node.${owner}.live.check`;
/** Front → owner, publish: the page's frames and the start and end of its connections, in their order. */
export const inSubject = (owner: string) => `meet.node.${owner}.live.in`;
/** Owner → front, publish: the hub's messages and closes for the front's connections, in their order. */
export const outSubject = (front: string) => `meet.node.${front}.live.out`;

/** Each side checks the other this often (the nodes' beat). */
export const relayCheckMs = beatEveryMs;
/**
 * Not heard from the other side for this long: its relayed connections close. A node's liveness
 * bound plus one check: the owner last answered at most a check before it froze, so by then it is
 * dead to every node (its beat too old) and its lease ran out, and the page's reconnection (a
 * refused one ends the page) finds the room's new owner rather than the frozen one.
 */
export const relaySilenceMs = aliveWithinMs + relayCheckMs;

/**
 * The close code of a relayed page whose owner is gone (died, froze, stopped, or lost the room):
 * not one of `closeCodes`, so the page reconnects after its jittered back-off, to any node, and
 * reaches the room's new owner.
 */
export const ownerGoneCode = 1012;

/** The connection ids: 16 random bytes as hex, made by the front node. */
const connIdLength = 32;
export const connIdPattern = /^[0-9a-f]{32}$/;

/** Owner-bound kinds: start (after the upgrade), a text frame, a binary frame, closed by the page. */
export type InKind = 's' | 'f' | 'b' | 'x';
/** Front-bound kinds: a message of the hub, a close with its code and reason. */
export type OutKind = 'm' | 'c';

/** One relayed frame: a kind byte, the connection id, then its payload. */
export function frame(kind: InKind | OutKind, conn: string, payload?: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(1 + connIdLength + (payload?.length ?? 0));
  bytes.write(kind, 0, 'latin1');
  bytes.write(conn, 1, 'latin1');
  if (payload) bytes.set(payload, 1 + connIdLength);
  return bytes;
}

/** A frame's parts, or null when it is not one (it was signed by a node: a bug, never an attack). */
export function unframe(body: Uint8Array): { kind: string; conn: string; payload: Buffer } | null {
  if (body.length < 1 + connIdLength) return null;
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const conn = bytes.toString('latin1', 1, 1 + connIdLength);
  if (!connIdPattern.test(conn)) return null;
  return { kind: bytes.toString('latin1', 0, 1), conn, payload: bytes.subarray(1 + connIdLength) };
}

/** A close's payload: the code (2 bytes) and the reason. */
export function closePayload(code: number, reason: string): Buffer {
  const text = Buffer.from(reason, 'utf8');
  const bytes = Buffer.allocUnsafe(2 + text.length);
  bytes.writeUInt16BE(code, 0);
  text.copy(bytes, 2);
  return bytes;
}

export function readClose(payload: Buffer): { code: number; reason: string } {
  if (payload.length < 2) return { code: ownerGoneCode, reason: 'room moved' };
  return { code: payload.readUInt16BE(0), reason: payload.toString('utf8', 2) };
}

/** The open request and its answer. */
export interface OpenRequest {
  readonly conn: string;
  readonly room: string;
  readonly session: string;
}
export type OpenAnswer = { readonly ok: true } | { readonly ok: false; readonly refused: 'unauthorized' | 'elsewhere' };

export const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');
export const parseJson = (body: Uint8Array): unknown => {
  try {
    return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return null;
  }
};
