import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import xml2js from 'xml2js';
import { daemonFor, type Tap } from './api.js';
import { tempDataDir, type Daemon } from './daemon.js';
import { installTestLicence } from './licence.js';
import { inProcessDaemonFor, type InProcessDaemon } from './in-process-daemon.js';
import { injectFetch } from './inject-fetch.js';
import type { DaemonOptions } from '../../src/daemon/run.js';

/** A daemon with the compat listener, spawned or in this process; `compatUrl` is where the meeting API answers. */
export interface CompatServer extends Pick<Daemon, 'url' | 'dataDir' | 'lines' | 'adminToken' | 'api'> {
  readonly compatUrl: string;
}

/** A spawned daemon with the compat listener (for what only the process shows: kill -9, exit codes, its output). */
export interface CompatDaemon extends Daemon, CompatServer {}

/** Waits (up to 5 s) for a log line matching `pattern` and returns its match. */
export async function logMatch(
  daemon: Pick<Daemon, 'lines'>,
  pattern: RegExp,
  timeoutMs = 5000,
): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of daemon.lines) {
      const match = pattern.exec(line);
      if (match) return match;
    }
    if (Date.now() > deadline) throw new Error(`no log line matched ${pattern}:\n${daemon.lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Starts a daemon with the compat module on 127.0.0.1:0 (stopped at teardown), installed
 * first with a valid licence of the test authority, as `meetctl install compat` would.
 */
export async function compatDaemonFor(t: Tap, env: Record<string, string> = {}): Promise<CompatDaemon> {
  const dataDir = env.SERVICE_DATA_DIR ?? tempDataDir();
  const licence = await installTestLicence(dataDir);
  const daemon = await daemonFor(t, { dataDir, env: { COMPAT_HTTP_ADDR: '127.0.0.1:0', ...licence, ...env } });
  // After daemonFor's own teardown (which stops the daemon), as daemonFor does for the directories it makes.
  if (env.SERVICE_DATA_DIR === undefined) t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const match = await logMatch(daemon, compatListening);
  return Object.assign(daemon, { compatUrl: match[1]! });
}

const compatListening = /"url":"(http:[^"]+)"[^\n]*"msg":"compat listening/;

/**
 * The same daemon (src/daemon/run.ts startDaemon, licence installed first, both listeners on
 * real sockets) started in this process: for what the daemon answers and logs, without the
 * cost of a process. Stopped, and its data directory removed unless given, at teardown.
 */
export async function compatInProcessFor(
  t: Tap,
  env: Record<string, string> = {},
  options: DaemonOptions = {},
): Promise<CompatServer & InProcessDaemon> {
  const dataDir = env.SERVICE_DATA_DIR ?? tempDataDir();
  const licence = await installTestLicence(dataDir);
  const daemon = await inProcessDaemonFor(t, dataDir, { COMPAT_HTTP_ADDR: '127.0.0.1:0', ...licence, ...env }, options);
  // After the daemon's own teardown (which stops it), as compatDaemonFor does.
  if (env.SERVICE_DATA_DIR === undefined) t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const match = await logMatch(daemon, compatListening);
  return Object.assign(daemon, { compatUrl: match[1]! });
}

export type Algorithm = 'sha1' | 'sha256' | 'sha384' | 'sha512';

/**
 * How real clients build a query string (see the reference's table):
 * - `plus`: insertion order, spaces as `+` (PHP http_build_query, Moodle, Scalelite)
 * - `percent`: insertion order, spaces as `%20` (bigbluebutton-js, bigbluebutton-api-php 3)
 * - `sorted`: keys sorted, spaces as `+` (Ruby gem / Greenlight, Rails to_query / Canvas)
 */
export type Style = 'plus' | 'percent' | 'sorted';

export type Pairs = readonly (readonly [string, string])[];

function encodePercent(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function buildQuery(pairs: Pairs, style: Style): string {
  const ordered = style === 'sorted' ? [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : pairs;
  if (style === 'percent') return ordered.map(([k, v]) => `${encodePercent(k)}=${encodePercent(v)}`).join('&');
  return new URLSearchParams(ordered.map(([k, v]): [string, string] => [k, v])).toString();
}

export function sign(call: string, query: string, secret: string, algorithm: Algorithm = 'sha1'): string {
  return createHash(algorithm)
    .update(call + query + secret)
    .digest('hex');
}

export interface ConfapiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The `<response>` element as an object (xml2js, explicitArray false), null when not XML. */
  readonly xml: any;
}

export async function parseXml(text: string): Promise<any> {
  try {
    const doc = await xml2js.parseStringPromise(text, { explicitArray: false, strict: true });
    return doc?.response ?? null;
  } catch {
    return null;
  }
}

/** A client that signs the way LMS integrations do; `path` is where it thinks the API is. */
export class ConfapiClient {
  constructor(
    readonly base: string,
    readonly secret: string,
    readonly algorithm: Algorithm = 'sha1',
    readonly style: Style = 'plus',
    readonly path = '/confapi/api',
  ) {}

  with(options: { secret?: string; algorithm?: Algorithm; style?: Style; path?: string }): ConfapiClient {
    return new ConfapiClient(
      this.base,
      options.secret ?? this.secret,
      options.algorithm ?? this.algorithm,
      options.style ?? this.style,
      options.path ?? this.path,
    );
  }

  /** The signed URL; no parameters gives `call?&checksum=…` like bigbluebutton-api-php. */
  url(call: string, pairs: Pairs = []): string {
    const query = buildQuery(pairs, this.style);
    const checksum = sign(call, query, this.secret, this.algorithm);
    return `${this.base}${this.path}/${call}?${query}&checksum=${checksum}`;
  }

  async get(call: string, pairs: Pairs = [], init: RequestInit = {}): Promise<ConfapiAnswer> {
    return fetchAnswer(this.url(call, pairs), init);
  }
}

export async function fetchAnswer(url: string, init: RequestInit = {}): Promise<ConfapiAnswer> {
  const response = await injectFetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000), ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, xml: await parseXml(text) };
}

/** Asserts an HTTP 200 XML FAILED answer with this messageKey. */
export function assertFailed(t: Tap, answer: ConfapiAnswer, messageKey: string, what: string): void {
  t.equal(answer.status, 200, `${what}: HTTP 200`);
  t.match(answer.headers.get('content-type'), /^text\/xml/, `${what}: XML`);
  t.equal(answer.xml?.returncode, 'FAILED', `${what}: returncode FAILED (${answer.text.replace(/\n/g, '')})`);
  t.equal(answer.xml?.messageKey, messageKey, `${what}: messageKey ${messageKey}`);
  t.match(answer.xml?.message, /\S/, `${what}: a message`);
}

export function assertSuccess(t: Tap, answer: ConfapiAnswer, what: string): void {
  t.equal(answer.status, 200, `${what}: HTTP 200`);
  t.equal(
    answer.xml?.returncode,
    'SUCCESS',
    `${what}: returncode SUCCESS (${answer.text.replace(/\n/g, '').slice(0, 300)})`,
  );
}

/** Attendees of a getMeetingInfo answer as an array (xml2js gives one object for one). */
export function attendeesOf(info: any): any[] {
  const list = info?.attendees?.attendee;
  return list === undefined ? [] : Array.isArray(list) ? list : [list];
}

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A local HTTP receiver for callbacks: records every request, answers `status`. */
export async function receiverFor(
  t: Tap,
  status = 200,
): Promise<{ url: string; port: number; received: Received[]; next(): Promise<Received> }> {
  const received: Received[] = [];
  const waiters: ((r: Received) => void)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      received.push(entry);
      waiters.shift()?.(entry);
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  let seen = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    next: () =>
      new Promise<Received>((resolve, reject) => {
        if (received.length > seen) return resolve(received[seen++]!);
        const timer = setTimeout(() => reject(new Error('no callback arrived within 5 s')), 5000);
        waiters.push((r) => {
          clearTimeout(timer);
          seen++;
          resolve(r);
        });
      }),
  };
}

/** Enters a room on the engine listener with a join token (what the web client does first). */
export async function startWithToken(
  daemon: Pick<Daemon, 'url'>,
  roomId: string,
  token: string,
  name = 'Typed name',
): Promise<{ status: number; body: any }> {
  const response = await injectFetch(`${daemon.url}/room/${encodeURIComponent(roomId)}/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, t: token }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

/** The room id and join token of a join redirect or join URL. */
export function roomAndToken(location: string): { roomId: string; token: string; url: URL } {
  const url = new URL(location);
  const match = /^\/room\/([^/]+)$/.exec(url.pathname);
  return { roomId: decodeURIComponent(match?.[1] ?? ''), token: url.searchParams.get('t') ?? '', url };
}

export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}
