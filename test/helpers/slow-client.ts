import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A client whose request never ends by itself, and what it saw. */
export interface SlowClient {
  readonly socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the connection is closed (by either side). */
  readonly closed: Promise<void>;
}

/**
 * Opens a connection and writes `head` (request line and headers, ending in a blank line) and
 * `bodyPart`, the start of a body its headers promise more of: the server holds the request
 * in flight until the rest comes (`socket.write`) or the connection is cut.
 */
export async function partialRequest(base: string, head: string, bodyPart: string): Promise<SlowClient> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(head + bodyPart);
  return { socket, received: () => received, closed };
}

/**
 * A request that never ends by itself: its headers promise a body of 1000 bytes and only the
 * first few arrive. It asks `Expect: 100-continue`, and resolves once the server's interim
 * "100 Continue" came back: Node sends it when it has parsed the head and handed the request to
 * the app, so from then on the request is in flight, however loaded the machine (a fixed sleep was
 * not enough under CI's load). The interim answer is not part of `received()`.
 */
export async function slowRequest(base: string, path: string, contentType = 'application/json'): Promise<SlowClient> {
  const host = new URL(base).host;
  const client = await partialRequest(
    base,
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${contentType}\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
    '{"name":',
  );
  const interim = /^HTTP\/1\.1 100 Continue\r\n\r\n/;
  const deadline = Date.now() + 30_000;
  while (!interim.test(client.received())) {
    if (Date.now() > deadline)
      throw new Error(`no "100 Continue" within 30 s; received ${JSON.stringify(client.received())}`);
    await sleep(10);
  }
  return { ...client, received: () => client.received().replace(interim, '') };
}

/** Sends `signal` to a daemon and resolves with its exit code and how long it took to go. */
export async function signalled(
  daemon: { readonly child: { kill(signal: NodeJS.Signals): boolean }; readonly exited: Promise<number | string> },
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<{ code: number | string; ms: number }> {
  const started = Date.now();
  daemon.child.kill(signal);
  const code = await daemon.exited;
  return { code, ms: Date.now() - started };
}

/** Whether a process (not our child) still runs: a zombie left for a reaper counts as gone. */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Kills `pid` only while it is still the program named `comm` (its /proc stat's name): a test's
 * teardown that kills a process it saw earlier must not hit another process that got the pid
 * since. This machine's pid_max is 32768 and CI starts thousands of processes, so a pid comes back
 * within minutes (CI runs 56 and 58: a teardown's late kill took down another test's PostgreSQL).
 */
export function killIfStill(pid: number, comm: string, signal: NodeJS.Signals = 'SIGKILL'): void {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return;
  }
  if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== comm) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Gone meanwhile.
  }
}
