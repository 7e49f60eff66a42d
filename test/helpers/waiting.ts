import type { Server, Tap } from './api.js';
import { call, rooms, type ApiResult } from './api.js';
import { apiOf, type Daemon } from './daemon.js';

/** The cookie that names a waiting request. */
export const waitingCookie = 'meet_wait';

const roomPath = (roomId: string) => `/room/${encodeURIComponent(roomId)}`;

interface StoredCookie {
  value: string;
  path: string;
}

/** One Set-Cookie header, split into its value and (lower-cased) attributes. */
export interface ParsedCookie {
  readonly name: string;
  readonly value: string;
  readonly attributes: Record<string, string | true>;
  readonly raw: string;
}

export function parseSetCookie(raw: string): ParsedCookie {
  const [pair = '', ...parts] = raw.split(';').map((part) => part.trim());
  const equals = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of parts) {
    const at = part.indexOf('=');
    if (at < 0) attributes[part.toLowerCase()] = true;
    else attributes[part.slice(0, at).toLowerCase()] = part.slice(at + 1);
  }
  return { name: pair.slice(0, equals), value: pair.slice(equals + 1), attributes, raw };
}

/** A cookie whose Max-Age is 0 or whose Expires lies in the past is a deletion. */
function isDeletion(cookie: ParsedCookie): boolean {
  const maxAge = cookie.attributes['max-age'];
  if (typeof maxAge === 'string' && Number(maxAge) <= 0) return true;
  const expires = cookie.attributes.expires;
  return typeof expires === 'string' && Date.parse(expires) <= Date.now();
}

/**
 * One browser at one room's addresses: it keeps the `meet_wait` cookie the way a browser
 * does (set, overwritten, cleared; sent only under its path) and never sends the admin token.
 * `forwardedFor` makes it a distinct client for the wrong-code limiter (the daemon trusts
 * X-Forwarded-For from 127.0.0.1); `forwardedProto` is what a TLS proxy in front would say.
 */
export class Browser {
  private jar: StoredCookie | null = null;
  /** Every response this browser received, raw, for privacy assertions. */
  readonly seen: ApiResult[] = [];
  /** The last Set-Cookie header for meet_wait, parsed. */
  lastSetCookie: ParsedCookie | null = null;

  constructor(
    readonly daemon: Server,
    readonly roomId: string,
    readonly options: { forwardedFor?: string; forwardedProto?: string } = {},
  ) {}

  /** The cookie value held now (null when none). */
  get cookie(): string | null {
    return this.jar?.value ?? null;
  }

  /** Replaces the jar, as if the cookie had been copied from another browser. */
  setCookie(value: string | null, path = roomPath(this.roomId)): void {
    this.jar = value === null ? null : { value, path };
  }

  /** A request to `/room/{roomId}{sub}` (or to another room's address with `room`). */
  async request(
    method: string,
    sub: string,
    options: { json?: unknown; room?: string; session?: string } = {},
  ): Promise<ApiResult> {
    const path = `${roomPath(options.room ?? this.roomId)}${sub}`;
    const headers: Record<string, string> = {};
    if (this.jar && (path === this.jar.path || path.startsWith(`${this.jar.path}/`)))
      headers.cookie = `${waitingCookie}=${this.jar.value}`;
    if (this.options.forwardedFor) headers['x-forwarded-for'] = this.options.forwardedFor;
    if (this.options.forwardedProto) headers['x-forwarded-proto'] = this.options.forwardedProto;
    const result = await call(this.daemon, path, {
      method,
      headers,
      token: options.session ?? null,
      ...(options.json !== undefined ? { json: options.json } : {}),
    });
    for (const raw of result.headers.getSetCookie()) {
      const cookie = parseSetCookie(raw);
      if (cookie.name !== waitingCookie) continue;
      this.lastSetCookie = cookie;
      const cookiePath = typeof cookie.attributes.path === 'string' ? cookie.attributes.path : path;
      this.jar = isDeletion(cookie) ? null : { value: cookie.value, path: cookiePath };
    }
    this.seen.push(result);
    return result;
  }

  exists(): Promise<ApiResult> {
    return this.request('GET', '/exists');
  }

  start(json: Record<string, unknown>): Promise<ApiResult> {
    return this.request('POST', '/start', { json });
  }

  knock(json: Record<string, unknown>): Promise<ApiResult> {
    return this.request('POST', '/knock', { json });
  }

  poll(): Promise<ApiResult> {
    return this.request('GET', '/waiting');
  }

  /** `DELETE /room/{id}/waiting`. */
  withdraw(): Promise<ApiResult> {
    return this.request('DELETE', '/waiting');
  }

  /** `POST /room/{id}/waiting/leave`, as navigator.sendBeacon sends it. */
  beacon(): Promise<ApiResult> {
    return this.request('POST', '/waiting/leave');
  }
}

/** The claims of a session (or join) token, decoded without verifying. */
export function claimsOf(token: unknown): Record<string, unknown> {
  const payload = typeof token === 'string' ? (token.split('.')[1] ?? '') : '';
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The join token (`t`) of a link made through the rooms API. */
export async function linkToken(
  daemon: Server,
  roomId: string,
  json: { role: 'moderator' | 'participant'; name?: string; ttl_secs?: number },
): Promise<string> {
  const made = await call(daemon, `/api/rooms/${encodeURIComponent(roomId)}/links`, { method: 'POST', json });
  if (made.status !== 201) throw new Error(`POST links answered ${made.status}: ${made.text}`);
  const t = new URL(made.body.url as string, 'http://x').searchParams.get('t');
  if (!t) throw new Error(`no t in ${made.text}`);
  return t;
}

export interface Session {
  readonly session: string;
  readonly participantId: string;
  readonly name: string;
  readonly role: string;
  /** The raw answer of /start (or of the poll that admitted). */
  readonly result: ApiResult;
}

function sessionOf(result: ApiResult, name: string): Session {
  if (typeof result.body?.session !== 'string') throw new Error(`no session in ${result.status} ${result.text}`);
  const claims = claimsOf(result.body.session);
  return {
    session: result.body.session,
    participantId: String(claims.participant),
    name,
    role: String(claims.role),
    result,
  };
}

/** Enters a room with a moderator link from the rooms API; returns the moderator's session. */
export async function moderator(daemon: Server, roomId: string, name = 'Moderator Mallory'): Promise<Session> {
  const t = await linkToken(daemon, roomId, { role: 'moderator' });
  const started = await call(daemon, `${roomPath(roomId)}/start`, { method: 'POST', token: null, json: { name, t } });
  if (started.status !== 200 || started.body?.status !== 'joined')
    throw new Error(`moderator start answered ${started.status}: ${started.text}`);
  return sessionOf(started, name);
}

/** The session an admitted poll (or a direct join) carries. */
export function admittedSession(result: ApiResult, name: string): Session {
  return sessionOf(result, name);
}

/** The gestures of a person holding a session at the room addresses. */
export const asSession = {
  list: (d: Server, roomId: string, session: string | null) =>
    call(d, `${roomPath(roomId)}/waiting-list`, { token: session }),
  admit: (d: Server, roomId: string, session: string | null, json: unknown) =>
    call(d, `${roomPath(roomId)}/admit`, { method: 'POST', token: session, json }),
  refuse: (d: Server, roomId: string, session: string | null, json: unknown) =>
    call(d, `${roomPath(roomId)}/refuse`, { method: 'POST', token: session, json }),
  disable: (d: Server, roomId: string, session: string | null) =>
    call(d, `${roomPath(roomId)}/waiting-room/disable`, { method: 'POST', token: session, json: {} }),
  leave: (d: Server, roomId: string, session: string | null) =>
    call(d, `${roomPath(roomId)}/leave`, { method: 'POST', token: session, json: {} }),
};

/** Knocks as `name` and is admitted by the moderator: her browser (it holds the cookie) and her session. */
export async function knockAndAdmit(
  d: Server,
  roomId: string,
  mod: Session,
  name: string,
): Promise<{ browser: Browser; session: Session }> {
  const browser = new Browser(d, roomId);
  const knocked = await browser.knock({ name });
  if (knocked.status !== 202) throw new Error(`${name} knock answered ${knocked.status}`);
  const list = await asSession.list(d, roomId, mod.session);
  const item = (list.body as { request_id: string; name: string }[]).find((i) => i.name === name);
  await asSession.admit(d, roomId, mod.session, { request_id: item!.request_id });
  return { browser, session: admittedSession(await browser.poll(), name) };
}

const apiRoom = (roomId: string) => `/api/rooms/${encodeURIComponent(roomId)}`;

/** The rooms API's waiting-room gestures and records (admin token unless `token` says otherwise). */
export const waitingApi = {
  list: (d: Server, roomId: string, token?: string | null) => call(d, `${apiRoom(roomId)}/waiting`, { token }),
  admit: (d: Server, roomId: string, requestId: string, token?: string | null) =>
    call(d, `${apiRoom(roomId)}/waiting/${encodeURIComponent(requestId)}/admit`, { method: 'POST', token, json: {} }),
  admitAll: (d: Server, roomId: string, token?: string | null) =>
    call(d, `${apiRoom(roomId)}/waiting/admit-all`, { method: 'POST', token, json: {} }),
  refuse: (d: Server, roomId: string, requestId: string, bar: boolean, token?: string | null) =>
    call(d, `${apiRoom(roomId)}/waiting/${encodeURIComponent(requestId)}/refuse`, {
      method: 'POST',
      token,
      json: { bar },
    }),
  disable: (d: Server, roomId: string, token?: string | null) =>
    call(d, `${apiRoom(roomId)}/waiting-room/disable`, { method: 'POST', token, json: {} }),
  timeline: (d: Server, roomId: string, token?: string | null) => call(d, `${apiRoom(roomId)}/timeline`, { token }),
  attendance: (d: Server, roomId: string, token?: string | null) =>
    call(d, `${apiRoom(roomId)}/attendance.csv`, { token }),
};

export interface TimelineView {
  at: string;
  kind: string;
  actor: { kind: string; participant_id: string | null; name: string } | null;
  subject: { request_id: string | null; participant_id: string | null; name: string } | null;
  count?: number;
  skipped?: number;
}

/** The open (or latest) meeting's timeline entries. */
export async function timeline(d: Server, roomId: string, token?: string | null): Promise<TimelineView[]> {
  const result = await waitingApi.timeline(d, roomId, token);
  if (result.status !== 200) throw new Error(`timeline answered ${result.status}: ${result.text}`);
  return result.body.entries as TimelineView[];
}

/** The attendance sheet as rows of cells (a simple CSV split; the test names hold no commas or quotes). */
export async function attendanceRows(d: Server, roomId: string, token?: string | null): Promise<string[][]> {
  const result = await waitingApi.attendance(d, roomId, token);
  if (result.status !== 200) throw new Error(`attendance answered ${result.status}: ${result.text}`);
  return result.text
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.split(','));
}

/** Creates a room through the rooms API or fails the test. */
export async function createRoom(t: Tap, d: Server, json: Record<string, unknown>): Promise<void> {
  const created = await rooms.create(d, json);
  if (created.status !== 201) t.fail(`room ${String(json.room_id)} not created: ${created.status} ${created.text}`);
}

/** The request ids and names of a moderator's waiting list. */
export function names(list: ApiResult): string[] {
  return (list.body as { name: string }[]).map((item) => item.name);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A daemon handle (spawned or in this process) whose API calls default to `adminToken`: after a restart on
 * the same data directory no new token file is written, so the first daemon's token is the one that works.
 */
export function withAdminToken<D extends Pick<Daemon, 'url' | 'adminToken' | 'api'>>(d: D, adminToken: string): D {
  return { ...d, adminToken, api: apiOf(d.url, adminToken) };
}
