/** The room addresses of the engine, as the page calls them. */
import { rememberIceServers } from './ice.js';
import { forgetRequest, rememberRequest } from './request-memory.js';

export interface ApiError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly retryAfter: number | null;
  /** The field an invalid_field names. */
  readonly field: string | null;
}

export type Result<T> = { ok: true; status: number; body: T } | { ok: false; error: ApiError };

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  session?: string,
  signal?: AbortSignal,
): Promise<Result<T>> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (session) headers.authorization = `Bearer ${session}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    text = await response.text();
  } catch {
    return {
      ok: false,
      error: { status: 0, code: 'network', message: 'The service cannot be reached.', retryAfter: null, field: null },
    };
  }
  const parsed = text ? (JSON.parse(text) as unknown) : null;
  // Every admitted answer (joined, admitted) carries the servers her media uses.
  if (response.ok && parsed && typeof parsed === 'object' && 'ice_servers' in parsed)
    rememberIceServers(parsed.ice_servers);
  if (response.ok) return { ok: true, status: response.status, body: parsed as T };
  const error = (parsed as { error?: { code?: string; message?: string; field?: string } } | null)?.error;
  const retry = Number(response.headers.get('retry-after'));
  return {
    ok: false,
    error: {
      status: response.status,
      code: error?.code ?? (parsed && typeof parsed === 'object' && 'exists' in parsed ? 'room_not_found' : 'unknown'),
      message: error?.message ?? response.statusText,
      retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
      field: typeof error?.field === 'string' ? error.field : null,
    },
  };
}

const base = (roomId: string) => `/room/${encodeURIComponent(roomId)}`;

export interface Joined {
  readonly status: 'joined';
  readonly session: string;
  readonly role: 'moderator' | 'participant';
}

export type PollAnswer =
  | { status: 'waiting' }
  | { status: 'admitted'; session: string }
  | { status: 'refused'; retry: true }
  | { status: 'expired'; retry: true }
  | { status: 'barred' };

/**
 * Requests this page withdrew (the waiting screen's Leave, or an embedding app's hangup, which
 * does not go through that screen): a poll scheduled before the withdrawal must not ask about
 * them, since the server's honest answer would be a 404 in the console.
 */
const withdrawnHere = new Set<string>();
const pollsInFlight = new Map<string, Promise<unknown>>();

export const roomApi = {
  /** A meeting API's room is shown only to its join token (`t`). */
  exists: (roomId: string, joinToken: string | null) =>
    request<{ exists: boolean; access_code: boolean; link_valid?: boolean }>(
      'GET',
      `${base(roomId)}/exists${joinToken ? `?t=${encodeURIComponent(joinToken)}` : ''}`,
    ),
  start: (roomId: string, body: { name: string; access_code?: string; t?: string }, session?: string) =>
    request<Joined | { status: 'knock' }>('POST', `${base(roomId)}/start`, body, session),
  /** A knock that waits is remembered by this tab, and only then is its request polled (request-memory.ts). */
  knock: async (roomId: string, body: { name: string; note: string; access_code?: string; t?: string }) => {
    const result = await request<Joined | { status: 'waiting' }>('POST', `${base(roomId)}/knock`, body);
    if (result.ok && result.body.status === 'waiting') {
      rememberRequest(roomId);
      withdrawnHere.delete(roomId);
    }
    return result;
  },
  /** Call only for a request this tab made (madeRequest): without one the server answers 404. */
  poll: async (roomId: string) => {
    // A poll with no answer in 10 s is given up as a network failure: one hung request (a stalled
    // connection, a proxy that never answers) must not stop every poll after it while her grace runs out.
    const answer = request<PollAnswer>(
      'GET',
      `${base(roomId)}/waiting`,
      undefined,
      undefined,
      AbortSignal.timeout(10_000),
    );
    pollsInFlight.set(roomId, answer);
    const result = await answer.finally(() => pollsInFlight.delete(roomId));
    // Refused, expired or gone: a reload has nothing to come back to. Waiting, admitted (a
    // reload goes back into the meeting) and barred (a reload stays barred) are kept.
    const over = result.ok
      ? result.body.status === 'refused' || result.body.status === 'expired'
      : result.error.status === 404;
    if (over) forgetRequest(roomId);
    return result;
  },
  /** True once this page withdrew its request in the room, until it knocks again. */
  withdrawn: (roomId: string) => withdrawnHere.has(roomId),
  withdraw: async (roomId: string) => {
    withdrawnHere.add(roomId);
    forgetRequest(roomId);
    // A poll already on its way is let through first, so that it does not arrive after the request is gone.
    await pollsInFlight.get(roomId)?.catch(() => undefined);
    return request<null>('DELETE', `${base(roomId)}/waiting`);
  },
  /** For pagehide: a beacon outlives the page; it is sent without a body. */
  leaveBeacon: (roomId: string) => navigator.sendBeacon(`${base(roomId)}/waiting/leave`),
  admit: (roomId: string, session: string, requestId: string) =>
    request<{ admitted: number }>('POST', `${base(roomId)}/admit`, { request_id: requestId }, session),
  admitAll: (roomId: string, session: string) =>
    request<{ admitted: number; skipped?: number }>('POST', `${base(roomId)}/admit`, { all: true }, session),
  refuse: (roomId: string, session: string, requestId: string, bar: boolean) =>
    request<unknown>('POST', `${base(roomId)}/refuse`, { request_id: requestId, bar }, session),
  disableWaitingRoom: (roomId: string, session: string) =>
    request<{ admitted: number }>('POST', `${base(roomId)}/waiting-room/disable`, {}, session),
  leave: (roomId: string, session: string) => request<null>('POST', `${base(roomId)}/leave`, undefined, session),
  /** A moderator's: a participant's link to the room (never a moderator's). */
  invite: (roomId: string, session: string) =>
    request<{ url: string }>('POST', `${base(roomId)}/invite`, undefined, session),
};
