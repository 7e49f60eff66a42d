import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { TooManyAttemptsError } from '../waiting/attempt-limiter.js';

// Codes are short (4+ characters), so a fast hash would fall to an offline guess; scrypt
// with a per-room salt makes a leaked database much less useful.
const keyLength = 32;

/** scrypt's cost parameters, kept in each hash (`scrypt$N$r$p$salt$key`, as account passwords keep theirs). */
export interface AccessCodeCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/**
 * Today's cost (Node's scrypt defaults: 16 MiB and some tens of milliseconds a hash). A hash made
 * before the cost was kept in it (`scrypt$salt$key`) was made at this cost and verifies with it.
 */
export const accessCodeCost: AccessCodeCost = { N: 1 << 14, r: 8, p: 1 };

/** scrypt's memory limit for a cost: its own need (128·N·r bytes) with room to spare. */
const maxmem = (cost: AccessCodeCost) => 256 * cost.N * cost.r;

/**
 * Only the rooms API (bearer token holders) sets a code, so hashing it inline stays an admin's cost.
 * `cost` is an installation's choice (a lower one makes tests that prove order, not cost, cheaper).
 */
export function hashAccessCode(code: string, cost: AccessCodeCost = accessCodeCost): string {
  const salt = randomBytes(16);
  const hash = scryptSync(code, salt, keyLength, { ...cost, maxmem: maxmem(cost) });
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** The key derivation (scrypt on the libuv pool) at the cost read from the hash; a test gives its own to decide when each ends. */
export type DeriveKey = (code: string, salt: Buffer, length: number, cost: AccessCodeCost) => Promise<Buffer>;

const scryptOffLoop: DeriveKey = (code, salt, length, cost) =>
  new Promise((resolve, reject) =>
    scrypt(code, salt, length, { ...cost, maxmem: maxmem(cost) }, (err, key) => (err ? reject(err) : resolve(key))),
  );

/** A positive integer written in a hash's cost field, or null. */
const costField = (text: string | undefined): number | null =>
  text !== undefined && /^[1-9]\d{0,9}$/.test(text) ? Number(text) : null;

/**
 * A stored hash's parts: `scrypt$N$r$p$salt$key`, or the older `scrypt$salt$key` at today's cost.
 * Null for anything else (it matches no code).
 */
function parseHash(stored: string): { cost: AccessCodeCost; salt: Buffer; key: Buffer } | null {
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt' || (parts.length !== 3 && parts.length !== 6)) return null;
  const [salt, key] = parts.slice(-2).map((part) => Buffer.from(part, 'base64url'));
  if (!salt || !key || key.length === 0) return null;
  if (parts.length === 3) return { cost: accessCodeCost, salt, key };
  const [N, r, p] = parts.slice(1, 4).map(costField);
  // scrypt's N is a power of two above 1; anything else is not a hash this code made.
  if (!N || !r || !p || N < 2 || !Number.isInteger(Math.log2(N))) return null;
  return { cost: { N, r, p }, salt, key };
}

export interface CodeCheckLimits {
  /** Hashes running at once over all rooms (1: the event loop keeps a core to itself while codes are checked). */
  readonly concurrency: number;
  /** Checks one room may hold, running or waiting; more are refused (waiting_room_full) rather than queued. */
  readonly perRoom: number;
}

/** Seconds a refused code is told to wait: a line of hundreds of hashes drains in seconds. */
const fullLineRetrySecs = 5;

export const defaultCodeCheckLimits: CodeCheckLimits = { concurrency: 1, perRoom: 500 };

/**
 * Checks codes on the libuv pool, not the event loop: a guesser sends codes for free, and each
 * costs tens of milliseconds of scrypt that every other request would otherwise wait for. At
 * most `concurrency` hashes run at once, so guesses cannot take every core from the loop either.
 *
 * The rest wait in fair turns, not in one line: rooms take turns, and inside a room its clients
 * take turns. A room runs one hash at a time and rejoins the rotation at its back when it ends,
 * so a room flooded with guesses holds up another room's code by at most the hashes already
 * running; a flooding client likewise holds up another client of the same room by one hash per
 * client waiting there. A room's line is bounded (`perRoom`), so a flood cannot grow it without end.
 */
export class AccessCodeChecker {
  private readonly limits: CodeCheckLimits;
  private running = 0;
  /** Checks waiting for their turn: room → client → their starts, in arrival order. */
  private readonly pending = new Map<string, Map<string, (() => void)[]>>();
  /** Rooms with a check waiting and none running, in the order of their turns (a Set keeps insertion order). */
  private readonly ready = new Set<string>();
  /** Rooms with a hash running, each with the line of the client it runs for (out of the rotation until it ends). */
  private readonly busy = new Map<string, { readonly client: string; readonly starts: (() => void)[] }>();
  /** Checks per room, running or waiting. */
  private readonly held = new Map<string, number>();

  constructor(
    limits: Partial<CodeCheckLimits> = {},
    private readonly derive: DeriveKey = scryptOffLoop,
  ) {
    this.limits = { ...defaultCodeCheckLimits, ...limits };
  }

  /** Whether `code` is the one `stored` was made from; `room` and `client` choose its place in line. */
  async matches(code: string, stored: string, room = '', client = ''): Promise<boolean> {
    const parsed = parseHash(stored);
    if (!parsed) return false;
    const expected = parsed.key;
    const held = this.held.get(room) ?? 0;
    // A full line answers like a full waiting room (429 with Retry-After): the place frees within seconds.
    if (held >= this.limits.perRoom) throw new TooManyAttemptsError(fullLineRetrySecs, 'waiting_room_full');
    this.held.set(room, held + 1);
    try {
      await new Promise<void>((start) => this.enqueue(room, client, start));
      try {
        const derived = await this.derive(code, parsed.salt, expected.length, parsed.cost);
        return derived.length === expected.length && timingSafeEqual(derived, expected);
      } finally {
        this.finish(room);
      }
    } finally {
      const left = this.held.get(room)! - 1;
      if (left === 0) this.held.delete(room);
      else this.held.set(room, left);
    }
  }

  private enqueue(room: string, client: string, start: () => void): void {
    const serving = this.busy.get(room);
    if (serving?.client === client) serving.starts.push(start);
    else this.line(room, client).push(start);
    if (!serving) this.ready.add(room);
    this.next();
  }

  private line(room: string, client: string): (() => void)[] {
    const clients = this.pending.get(room) ?? new Map<string, (() => void)[]>();
    this.pending.set(room, clients);
    const starts = clients.get(client) ?? [];
    clients.set(client, starts);
    return starts;
  }

  private finish(room: string): void {
    this.running--;
    const served = this.busy.get(room)!;
    this.busy.delete(room);
    // Back into the rotation behind everyone who arrived while it ran: the client in its room, the room among rooms.
    if (served.starts.length > 0) this.line(room, served.client).push(...served.starts);
    if (this.pending.has(room)) this.ready.add(room);
    this.next();
  }

  private next(): void {
    while (this.running < this.limits.concurrency) {
      const room = this.ready.values().next().value;
      if (room === undefined) return;
      this.ready.delete(room);
      const clients = this.pending.get(room)!;
      const [client, starts] = clients.entries().next().value!;
      const start = starts.shift()!;
      clients.delete(client);
      if (clients.size === 0) this.pending.delete(room);
      this.running++;
      this.busy.set(room, { client, starts });
      start();
    }
  }
}
