/**
 * waiting → admitted | refused | barred | expired (pollable, kept until the meeting ends)
 * waiting → withdrawn | window_closed (gone at once: nobody is there to tell)
 */
export const requestStates = [
  'waiting',
  'admitted',
  'refused',
  'barred',
  'expired',
  'withdrawn',
  'window_closed',
] as const;
export type RequestState = (typeof requestStates)[number];

/** What a poll can still answer; the other states have no reader any more. */
export const pollableStates: readonly RequestState[] = ['waiting', 'admitted', 'refused', 'barred', 'expired'];

export interface WaitingRequest {
  /** Public: moderators name the request by it. */
  readonly requestId: string;
  readonly meetingId: string;
  /** SHA-256 of the browser's secret in base64url (hashSecret); the secret itself is never stored. */
  readonly secretHash: string;
  readonly name: string;
  readonly note: string;
  readonly state: RequestState;
  readonly knockedAt: string;
  /** knockedAt plus the room's timeout at the time of the knock. */
  readonly expiresAt: string;
  /** When the request left `waiting`. */
  readonly decidedAt: string | null;
  /** The participant created by the admission. */
  readonly participantId: string | null;
  /**
   * Her picture from her link (a join's avatarURL, a gateway token's avatar; http(s), checked by
   * the token service), carried to her participant on admission. Never shown while she waits.
   */
  readonly avatarUrl: string | null;
}

/** A new request, knocked `nowMs` (when it is written) and expiring `timeoutMs` later. */
export function newWaitingRequest(fields: {
  readonly requestId: string;
  readonly meetingId: string;
  readonly secretHash: string;
  readonly name: string;
  readonly note: string;
  readonly avatarUrl?: string | null;
  readonly nowMs: number;
  readonly timeoutMs: number;
}): WaitingRequest {
  const { nowMs, timeoutMs } = fields;
  // Written out field by field: a spread of the rest gave every request a hidden class of its own
  // in V8 (about 400 bytes each, 4 MiB per 10,000 waiting).
  return {
    requestId: fields.requestId,
    meetingId: fields.meetingId,
    secretHash: fields.secretHash,
    name: fields.name,
    note: fields.note,
    avatarUrl: fields.avatarUrl ?? null,
    state: 'waiting',
    knockedAt: new Date(nowMs).toISOString(),
    expiresAt: new Date(nowMs + timeoutMs).toISOString(),
    decidedAt: null,
    participantId: null,
  };
}

export interface WaitingRequestStore {
  /**
   * A knock: inserts the request AND records its knock in the meeting's timeline, as the entry
   * { kind 'knock', at knockedAt, actor null, subject { requestId, participantId null, name },
   * count null } placed after every entry recorded before it. The SQLite store keeps that entry
   * as part of the request row (a separate row would cost each knock a random page of the
   * timeline's meeting index); timelineOf returns it all the same.
   */
  insertKnock(request: WaitingRequest): void;
  /** Writes state, decidedAt and participantId. */
  updateRequest(request: WaitingRequest): void;
  /** Requests of a meeting in a pollable state, in knock order. */
  pollableRequests(meetingId: string): WaitingRequest[];
  /** Refused and barred requests of a meeting, in decision order. */
  refusedRequests(meetingId: string): WaitingRequest[];
}
