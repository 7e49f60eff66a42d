import { hashSecret } from './request-secret.js';
import type { WaitingRequest } from './waiting-request.js';

/**
 * The counts a waiting request holds in its room: its client's (an address, an IPv6 /64) and,
 * for IPv6, its network's (the /56), so a client cannot spread its requests over the /64s it owns.
 */
export interface ClientSlot {
  readonly roomId: string;
  /** The client's key: its address, or its IPv6 /64. */
  readonly client: string;
  /** Its IPv6 /56, or null. */
  readonly network: string | null;
}

/**
 * A waiting request in memory. Made only by `liveRequest`, so every entry has every field from
 * the start and keeps one hidden class in V8: a mark added later (lost, leaving, a cookie proven
 * after a restart) gave the entry an out-of-object property array, and a `delete` may make it a
 * dictionary. A mark is cleared by setting it to undefined.
 */
export interface LiveRequest {
  request: WaitingRequest;
  readonly expiresAtMs: number;
  /** Memory only: a poll must not cost a write. */
  lastSeenMs: number;
  /** Memory only: when her page said it was going away (a beacon), unless it polls again. */
  leavingSinceMs?: number;
  /** Memory only: when moderators were told her connection was lost (silent for a few polls, within the grace). */
  lostSinceMs?: number;
  /** Memory only: her cookie, known from her knock or once a hash matched it, so polls skip hashing (see `bySecret`). */
  cookie?: string;
  /** Memory only: room and client (and IPv6 network) that knocked, for the per-client limits (absent after a restart). */
  readonly clientSlot?: ClientSlot;
}

export function liveRequest(fields: {
  readonly request: WaitingRequest;
  readonly expiresAtMs: number;
  readonly lastSeenMs: number;
  readonly cookie?: string;
  readonly clientSlot?: ClientSlot;
}): LiveRequest {
  return {
    request: fields.request,
    expiresAtMs: fields.expiresAtMs,
    lastSeenMs: fields.lastSeenMs,
    leavingSinceMs: undefined,
    lostSinceMs: undefined,
    cookie: fields.cookie,
    clientSlot: fields.clientSlot,
  };
}

/** A name as a person types it again: trimmed, spaces collapsed, without case (ß is ss) or accents ("  max MULLER" is "Max Müller"). */
function nameKey(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}/gu, '').trim().replace(/\s+/gu, ' ').toUpperCase().toLowerCase();
}

/** The pollable requests of one room's open meeting: the read path of every poll. */
export class RoomQueue {
  /** Requests still waiting, in knock order (Map keeps insertion order). */
  readonly waiting = new Map<string, LiveRequest>();
  private readonly byId = new Map<string, LiveRequest>();
  private readonly byHash = new Map<string, LiveRequest>();
  /** Cookies already proven by their hash: a poll every 2 s from everyone waiting is the hottest path. */
  private readonly byCookie = new Map<string, LiveRequest>();
  /** The people barred in this meeting, by their name's key: the name each was barred as. */
  private readonly barredNames = new Map<string, { readonly requestId: string; readonly name: string }>();

  /** Moderators whose arrival left marked requests waiting, and how many (until the first list her page gets). */
  private readonly arrivalSkips = new Map<string, number>();

  constructor(readonly meetingId: string) {}

  arrivalSkipped(moderatorId: string, count: number): void {
    if (count > 0) this.arrivalSkips.set(moderatorId, count);
  }

  takeArrivalSkipped(moderatorId: string): number {
    const count = this.arrivalSkips.get(moderatorId) ?? 0;
    this.arrivalSkips.delete(moderatorId);
    return count;
  }

  add(live: LiveRequest): void {
    this.byId.set(live.request.requestId, live);
    // A request whose cookie is known (every knock since this start) is found by it alone; only
    // requests read back after a restart are kept by hash until their cookie proves itself.
    if (live.cookie !== undefined) this.byCookie.set(live.cookie, live);
    else this.byHash.set(live.request.secretHash, live);
    if (live.request.state === 'waiting') this.waiting.set(live.request.requestId, live);
    this.noteBar(live.request);
  }

  /**
   * The name a person barred in this meeting was barred as, when `name` is hers typed again (another
   * browser carries no mark of the bar). Not a bar: the moderators are told, the person still waits.
   */
  barredAs(name: string): string | undefined {
    return this.barredNames.get(nameKey(name))?.name;
  }

  /** Those waiting under a name that was barred in this meeting. */
  waitingNamed(name: string): WaitingRequest[] {
    const key = nameKey(name);
    return [...this.waiting.values()].filter((l) => nameKey(l.request.name) === key).map((l) => l.request);
  }

  byRequestId(requestId: string): LiveRequest | undefined {
    return this.byId.get(requestId);
  }

  bySecretHash(hash: string): LiveRequest | undefined {
    return this.byHash.get(hash);
  }

  /**
   * The request a cookie names. Only the hash is stored, so a cookie is hashed the first time;
   * once it matched, memory keeps it (never the store) and its next polls are one map lookup.
   */
  bySecret(secret: string): LiveRequest | undefined {
    const known = this.byCookie.get(secret);
    if (known) return known;
    const live = this.bySecretHash(hashSecret(secret));
    if (live) {
      live.cookie = secret;
      this.byCookie.set(secret, live);
      this.byHash.delete(live.request.secretHash);
    }
    return live;
  }

  replace(live: LiveRequest, request: WaitingRequest): void {
    live.request = request;
    if (request.state !== 'waiting') this.waiting.delete(request.requestId);
    this.noteBar(request);
  }

  /** Takes back a `replace` whose transaction failed: a request waiting again regains its place in knock order (request ids sort in it). */
  restore(live: LiveRequest, request: WaitingRequest): void {
    live.request = request;
    this.forgetBar(request.requestId);
    if (request.state !== 'waiting' || this.waiting.has(request.requestId)) return;
    const ordered = [...this.waiting.values(), live].sort((a, b) =>
      a.request.requestId < b.request.requestId ? -1 : 1,
    );
    this.waiting.clear();
    for (const entry of ordered) this.waiting.set(entry.request.requestId, entry);
  }

  remove(live: LiveRequest): void {
    this.byId.delete(live.request.requestId);
    this.byHash.delete(live.request.secretHash);
    if (live.cookie !== undefined) this.byCookie.delete(live.cookie);
    this.waiting.delete(live.request.requestId);
    this.forgetBar(live.request.requestId);
  }

  private noteBar(request: WaitingRequest): void {
    if (request.state === 'barred')
      this.barredNames.set(nameKey(request.name), { requestId: request.requestId, name: request.name });
  }

  private forgetBar(requestId: string): void {
    for (const [key, bar] of this.barredNames) if (bar.requestId === requestId) this.barredNames.delete(key);
  }
}
