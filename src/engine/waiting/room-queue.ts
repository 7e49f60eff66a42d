import type { WaitingRequest } from './waiting-request.js';

export interface LiveRequest {
  request: WaitingRequest;
  readonly expiresAtMs: number;
  /** Memory only: a poll must not cost a write. */
  lastSeenMs: number;
  /** Memory only: when her page said it was going away (a beacon), unless it polls again. */
  leavingSinceMs?: number;
}

/** The pollable requests of one room's open meeting: the read path of every poll. */
export class RoomQueue {
  /** Requests still waiting, in knock order (Map keeps insertion order). */
  readonly waiting = new Map<string, LiveRequest>();
  private readonly byId = new Map<string, LiveRequest>();
  private readonly bySecret = new Map<string, LiveRequest>();

  constructor(readonly meetingId: string) {}

  add(live: LiveRequest): void {
    this.byId.set(live.request.requestId, live);
    this.bySecret.set(live.request.secretHash.toString('base64url'), live);
    if (live.request.state === 'waiting') this.waiting.set(live.request.requestId, live);
  }

  byRequestId(requestId: string): LiveRequest | undefined {
    return this.byId.get(requestId);
  }

  bySecretHash(hash: Buffer): LiveRequest | undefined {
    return this.bySecret.get(hash.toString('base64url'));
  }

  replace(live: LiveRequest, request: WaitingRequest): void {
    live.request = request;
    if (request.state !== 'waiting') this.waiting.delete(request.requestId);
  }

  remove(live: LiveRequest): void {
    this.byId.delete(live.request.requestId);
    this.bySecret.delete(live.request.secretHash.toString('base64url'));
    this.waiting.delete(live.request.requestId);
  }
}
