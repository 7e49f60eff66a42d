import { rmSync } from 'node:fs';
import { startDaemon, stopDaemon, type Daemon } from './daemon.js';

/** The subset of a tap Test these helpers use, so they work in any subtest. */
export interface Tap {
  equal(found: unknown, wanted: unknown, message?: string): unknown;
  same(found: unknown, wanted: unknown, message?: string): unknown;
  match(found: unknown, pattern: unknown, message?: string): unknown;
  ok(found: unknown, message?: string): unknown;
  teardown(fn: () => unknown): void;
}

/** A response read once: status, headers, the raw text and, when it parses, the JSON. */
export interface ApiResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

export async function call(daemon: Daemon, path: string, init: RequestInit & { token?: string | null; json?: unknown } = {}): Promise<ApiResult> {
  const { json, ...rest } = init;
  const response = await daemon.api(path, {
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
  create: (d: Daemon, json: unknown) => call(d, '/api/rooms', { method: 'POST', json }),
  get: (d: Daemon, id: string) => call(d, `/api/rooms/${encodeURIComponent(id)}`),
  patch: (d: Daemon, id: string, json: unknown) => call(d, `/api/rooms/${encodeURIComponent(id)}`, { method: 'PATCH', json }),
  delete: (d: Daemon, id: string) => call(d, `/api/rooms/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  list: (d: Daemon, query = '') => call(d, `/api/rooms${query}`),
};

/**
 * Asserts `result` is an error of the API: the status, and a body of exactly
 * `{error: {code, message, field?}}` with the expected code and field (absent when not given).
 */
export function assertError(t: Tap, result: ApiResult, status: number, code: string, field?: string): void {
  t.equal(result.status, status, `status ${status} (${code}${field ? `, ${field}` : ''})`);
  t.match(result.headers.get('content-type'), /^application\/json/, 'error is JSON');
  t.same(Object.keys(result.body ?? {}), ['error'], `body has only "error": ${result.text}`);
  const error = result.body?.error ?? {};
  t.equal(error.code, code, 'error.code');
  t.equal(typeof error.message, 'string', 'error.message is a string');
  t.ok(String(error.message).length > 0, 'error.message is not empty');
  t.same(Object.keys(error).sort(), field === undefined ? ['code', 'message'] : ['code', 'field', 'message'], 'error has code, message, field?');
  t.equal(error.field, field, 'error.field');
}

/** Starts a daemon for the current test and stops it (and removes its data) at teardown. */
export async function daemonFor(t: Tap, options: Parameters<typeof startDaemon>[0] = {}): Promise<Daemon> {
  const daemon = await startDaemon(options);
  t.teardown(async () => {
    await stopDaemon(daemon, 'SIGKILL');
    if (!options.dataDir) rmSync(daemon.dataDir, { recursive: true, force: true });
  });
  return daemon;
}
