import { rmSync } from 'node:fs';
import type { Test } from 'tap';
import { startDaemon, stopDaemon, tempDataDir, type Daemon } from './daemon.js';

/** A tap test, as the callbacks of t.test receive it. */
export type Tap = Test;

/** What the API helpers call: a spawned daemon (daemon.ts) or the engine in-process (app.ts). */
export type Server = Pick<Daemon, 'api' | 'adminToken'>;

/** A response read once: status, headers, the raw text and, when it parses, the JSON. */
export interface ApiResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON, null when the body is empty or not JSON. */
  readonly body: any;
}

/** Calls the API (admin token unless `token` says otherwise); `json` is sent as a JSON body. */
export async function call(
  server: Server,
  path: string,
  init: RequestInit & { token?: string | null; json?: unknown } = {},
): Promise<ApiResult> {
  const { json, ...rest } = init;
  const response = await server.api(path, {
    signal: AbortSignal.timeout(10_000),
    ...rest,
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON; the caller asserts on text
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** The shorthands of the rooms API. */
export const rooms = {
  create: (d: Server, json: unknown) => call(d, '/api/rooms', { method: 'POST', json }),
  get: (d: Server, id: string) => call(d, `/api/rooms/${encodeURIComponent(id)}`),
  patch: (d: Server, id: string, json: unknown) =>
    call(d, `/api/rooms/${encodeURIComponent(id)}`, { method: 'PATCH', json }),
  delete: (d: Server, id: string) => call(d, `/api/rooms/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  list: (d: Server, query = '') => call(d, `/api/rooms${query}`),
};

/**
 * Asserts `result` is an error of the API: the status, and a body of exactly
 * `{error: {code, message, field?}}` with the expected code and field (absent when not given).
 */
export function assertError(t: Tap, result: ApiResult, status: number, code: string, field?: string): void {
  const what = `${status} ${code}${field ? ` (${field})` : ''}`;
  t.equal(result.status, status, `status ${what}`);
  t.match(result.headers.get('content-type'), /^application\/json/, `JSON error body: ${result.text}`);
  const message: unknown = result.body?.error?.message;
  t.same(
    result.body,
    { error: { code, message, ...(field === undefined ? {} : { field }) } },
    `body is {error: {code, message, field?}} for ${what}`,
  );
  t.match(message, /\S/, 'error.message is a non-empty string');
}

/**
 * Stops a daemon with SIGTERM (so it writes its coverage on exit), SIGKILL after 5 s.
 * Resolves with the exit code or signal name.
 */
export async function stopGracefully(daemon: Daemon): Promise<number | string> {
  const timer = setTimeout(() => daemon.child.kill('SIGKILL'), 5_000);
  try {
    return await stopDaemon(daemon, 'SIGTERM');
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a daemon for the current test and stops it (and removes its data) at teardown. */
export async function daemonFor(t: Tap, options: Parameters<typeof startDaemon>[0] = {}): Promise<Daemon> {
  const daemon = await startDaemon(options);
  t.teardown(async () => {
    await stopGracefully(daemon);
    if (!options.dataDir) rmSync(daemon.dataDir, { recursive: true, force: true });
  });
  return daemon;
}

/** A fresh data directory, removed when the test ends. */
export function dataDirFor(t: Tap): string {
  const dir = tempDataDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The log lines that are JSON, parsed (a daemon's stdout, or the in-process engine's log). */
export function logRecords(daemon: Pick<Daemon, 'lines'>): Record<string, unknown>[] {
  return daemon.lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
