import WebSocket from 'ws';
import type { ClientMessage, ServerMessage, WaitingItem } from '../../src/protocol/live.js';
import type { Daemon } from './daemon.js';

type Of<T extends ServerMessage['type']> = Extract<ServerMessage, { type: T }>;

export const liveUrl = (daemon: Pick<Daemon, 'url'>, roomId: string, session?: string | null): string => {
  const url = new URL(`/room/${encodeURIComponent(roomId)}/live`, daemon.url.replace(/^http/, 'ws'));
  if (session) url.searchParams.set('session', session);
  return url.toString();
};

/**
 * A real `ws` client of the live connection. Every message received is kept; `next` takes
 * the first one not taken yet that matches, waiting for it (bounded), so tests read the
 * stream in order without losing what arrived early.
 */
/** The text of a received message, whichever form ws delivered it in. */
export function textOf(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString();
  return Array.isArray(data) ? Buffer.concat(data).toString() : Buffer.from(data).toString();
}

export class LiveClient {
  readonly received: ServerMessage[] = [];
  /** Bytes of every message received (the payload of its frames). */
  bytes = 0;
  private readonly taken = new Set<number>();
  private readonly waiters = new Set<() => void>();
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.bytes += Buffer.isBuffer(data)
        ? data.length
        : Array.isArray(data)
          ? data.reduce((n, b) => n + b.length, 0)
          : data.byteLength;
      this.received.push(JSON.parse(textOf(data)) as ServerMessage);
      for (const wake of [...this.waiters]) wake();
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  send(message: ClientMessage | Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  sendRaw(text: string): void {
    this.socket.send(text);
  }

  /** The first untaken message of `type` matching `where`; rejects after `timeoutMs`. */
  next<T extends ServerMessage['type']>(
    type: T,
    where: (m: Of<T>) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<Of<T>> {
    return new Promise((resolve, reject) => {
      const look = (): boolean => {
        const index = this.received.findIndex((m, i) => !this.taken.has(i) && m.type === type && where(m as Of<T>));
        if (index < 0) return false;
        this.taken.add(index);
        resolve(this.received[index] as Of<T>);
        return true;
      };
      if (look()) return;
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(
          new Error(
            `no ${type} message within ${timeoutMs} ms; received: ${JSON.stringify(this.received.map((m) => m.type))}`,
          ),
        );
      }, timeoutMs);
      const wake = () => {
        if (look()) {
          clearTimeout(timer);
          this.waiters.delete(wake);
        }
      };
      this.waiters.add(wake);
    });
  }

  /** Resolves with what `look` finds in the messages received, once it finds something; rejects after `timeoutMs`. */
  until<T>(look: () => T | undefined, what: string, timeoutMs = 5000): Promise<T> {
    return new Promise((resolve, reject) => {
      const found = look();
      if (found !== undefined) return resolve(found);
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(
          new Error(
            `${what}: not within ${timeoutMs} ms; received: ${JSON.stringify(this.received.map((m) => m.type))}`,
          ),
        );
      }, timeoutMs);
      const wake = () => {
        let value: T | undefined;
        try {
          value = look();
        } catch (err) {
          clearTimeout(timer);
          this.waiters.delete(wake);
          reject(err);
          return;
        }
        if (value === undefined) return;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(value);
      };
      this.waiters.add(wake);
    });
  }

  /** Untaken messages of `type` received so far. */
  pending<T extends ServerMessage['type']>(type: T): Of<T>[] {
    return this.received.filter((m, i) => !this.taken.has(i) && m.type === type) as Of<T>[];
  }

  /** Every message of `type` received so far, taken or not. */
  all<T extends ServerMessage['type']>(type: T): Of<T>[] {
    return this.received.filter((m) => m.type === type) as Of<T>[];
  }

  close(): Promise<{ code: number; reason: string }> {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING)
      this.socket.close(1000);
    return this.closed;
  }
}

/** Opens the live connection and waits for `welcome` (5 s at most). */
export async function connectLive(
  daemon: Pick<Daemon, 'url'>,
  roomId: string,
  session: string,
): Promise<{ client: LiveClient; welcome: Of<'welcome'> }> {
  const socket = new WebSocket(liveUrl(daemon, roomId, session));
  const client = new LiveClient(socket);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('live socket did not open in 5 s')), 5000);
    socket.once('open', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      reject(new Error(`upgrade refused with ${res.statusCode}`));
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
  const welcome = await client.next('welcome');
  return { client, welcome };
}

export interface RefusedUpgrade {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: any;
}

/** Tries to open the live connection and expects the upgrade to be refused; resolves with the HTTP answer. */
export function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<RefusedUpgrade> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const timer = setTimeout(() => reject(new Error('no answer to the upgrade in 5 s')), 5000);
    socket.once('open', () => {
      clearTimeout(timer);
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body });
      });
    });
    socket.once('error', () => {
      // 'unexpected-response' handles refusals; other errors end in the timeout's message.
    });
  });
}

/** Resolves after `ms`; for "nothing arrives within" checks. */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitingView {
  readonly seq: number;
  readonly requests: WaitingItem[];
  /** How many waiting_list and waiting_changes messages made it. */
  readonly messages: number;
}

/**
 * The moderator's waiting list as a page holds it: the last whole list, with every change after
 * it applied in order (removed, added, updated). Throws on a change out of sequence, as a page
 * would ask for the list again. Null before the first whole list.
 */
export function waitingView(client: LiveClient): WaitingView | null {
  let seq = -1;
  let held: Map<string, WaitingItem> | null = null;
  let messages = 0;
  for (const m of client.received) {
    if (m.type === 'waiting_list') {
      seq = m.seq;
      held = new Map(m.requests.map((r) => [r.request_id, r]));
      messages++;
    } else if (m.type === 'waiting_changes') {
      if (!held) throw new Error(`waiting_changes seq ${m.seq} before any waiting_list`);
      if (m.seq !== seq + 1) throw new Error(`waiting_changes seq ${m.seq} after seq ${seq}: a gap`);
      seq = m.seq;
      for (const id of m.removed) held.delete(id);
      for (const r of m.added) held.set(r.request_id, r);
      for (const r of m.updated) if (held.has(r.request_id)) held.set(r.request_id, r);
      messages++;
    }
  }
  if (!held) return null;
  const requests = [...held.values()].sort((a, b) =>
    a.knocked_at < b.knocked_at ? -1 : a.knocked_at > b.knocked_at ? 1 : 0,
  );
  return { seq, requests, messages };
}

/** Waits until the moderator's list (see `waitingView`) satisfies `where`. */
export function waitingUntil(
  client: LiveClient,
  where: (view: WaitingView) => boolean,
  timeoutMs = 5000,
): Promise<WaitingView> {
  return client.until(
    () => {
      const view = waitingView(client);
      return view && where(view) ? view : undefined;
    },
    'waiting list',
    timeoutMs,
  );
}
