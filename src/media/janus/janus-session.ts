/**
 * The Janus HTTP API (core level): a session, its long poll for events, handles attached to a
 * plugin, and the transactions that match an asynchronous answer to its request. Over the
 * global `fetch`, so media/ needs no Node import. Every request carries the API secret; the
 * secret never appears in an error message (the URL of a failed poll is not quoted).
 */
export interface Jsep {
  readonly type: 'offer' | 'answer';
  readonly sdp: string;
}

/** What Janus sends a handle without being asked (plugin events, webrtcup, hangup, media...). */
export interface JanusEvent {
  readonly janus: string;
  readonly sender?: number;
  readonly transaction?: string;
  readonly plugindata?: { readonly plugin: string; readonly data: Record<string, unknown> };
  readonly jsep?: Jsep;
  readonly [key: string]: unknown;
}

export class JanusError extends Error {
  constructor(
    readonly code: number,
    reason: string,
  ) {
    super(`Janus refused the request (${code}): ${reason}`);
    this.name = 'JanusError';
  }
}

export interface JanusEndpoint {
  /** The HTTP API's base, e.g. http://127.0.0.1:18088/janus. */
  readonly url: string;
  readonly apiSecret: string;
  /** How long one request may take before it counts as failed. */
  readonly timeoutMs?: number;
}

let counter = 0;
const transactionId = () => `t${Date.now().toString(36)}${(counter++).toString(36)}`;

async function post(endpoint: JanusEndpoint, path: string, body: Record<string, unknown>): Promise<JanusEvent> {
  const response = await fetch(endpoint.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, apisecret: endpoint.apiSecret }),
    signal: AbortSignal.timeout(endpoint.timeoutMs ?? 5000),
  });
  if (!response.ok) throw new JanusError(response.status, `HTTP ${response.status} from the Janus API`);
  const answer = (await response.json()) as JanusEvent;
  if (answer.janus === 'error') throw errorOf(answer);
  return answer;
}

function errorOf(answer: JanusEvent): JanusError {
  const error = answer['error'] as { code?: number; reason?: string } | undefined;
  return new JanusError(error?.code ?? 0, error?.reason ?? 'unknown error');
}

/** Janus's answer to `info` (no secret needed): whether it is up, and what it runs. */
export async function janusInfo(
  endpoint: JanusEndpoint,
): Promise<{ readonly version: string; readonly plugins: readonly string[] }> {
  const info = await post(endpoint, '', { janus: 'info', transaction: transactionId() });
  return {
    version: String(info['version_string']),
    plugins: Object.keys((info['plugins'] as object | undefined) ?? {}),
  };
}

type Pending = {
  resolve: (event: JanusEvent) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
};

/** One Janus session: created, polled, kept alive, destroyed. */
export class JanusSession {
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Map<number, (event: JanusEvent) => void>();
  private readonly keepaliveTimer: ReturnType<typeof setInterval>;
  private closed = false;

  private constructor(
    private readonly endpoint: JanusEndpoint,
    readonly id: number,
    /** Told once when the session is gone (Janus stopped answering, or timed it out). */
    private readonly onLost: (err: Error) => void,
  ) {
    this.keepaliveTimer = setInterval(() => {
      this.keepalive().catch((err: unknown) => this.lose(err));
    }, 20_000);
    this.keepaliveTimer.unref();
    void this.poll();
  }

  static async create(endpoint: JanusEndpoint, onLost: (err: Error) => void = () => {}): Promise<JanusSession> {
    const answer = await post(endpoint, '', { janus: 'create', transaction: transactionId() });
    const id = (answer['data'] as { id: number }).id;
    return new JanusSession(endpoint, id, onLost);
  }

  get alive(): boolean {
    return !this.closed;
  }

  /** Attaches a handle to a plugin; `onEvent` hears what Janus sends that handle unasked. */
  async attach(plugin: string, onEvent: (event: JanusEvent) => void): Promise<number> {
    const answer = await this.request('', { janus: 'attach', plugin });
    const handle = (answer['data'] as { id: number }).id;
    this.listeners.set(handle, onEvent);
    return handle;
  }

  async detach(handle: number): Promise<void> {
    this.listeners.delete(handle);
    await this.request(`/${handle}`, { janus: 'detach' });
  }

  /** A synchronous plugin request: Janus answers in the HTTP response. */
  async sync(handle: number, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await this.request(`/${handle}`, { janus: 'message', body });
    const data = answer.plugindata?.data ?? {};
    if (data['error_code'] !== undefined) throw new JanusError(Number(data['error_code']), String(data['error']));
    return data;
  }

  /** An asynchronous plugin request: Janus acks, and its answer arrives on the long poll. */
  async async(handle: number, body: Record<string, unknown>, jsep?: Jsep, timeoutMs = 10_000): Promise<JanusEvent> {
    const transaction = transactionId();
    const answer = new Promise<JanusEvent>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(transaction);
        reject(new Error(`Janus did not answer ${String(body['request'])} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(transaction, { resolve, reject, timer });
    });
    try {
      await this.request(`/${handle}`, { janus: 'message', body, ...(jsep ? { jsep } : {}) }, transaction);
    } catch (err) {
      this.settle(transaction)?.reject(err as Error);
    }
    const event = await answer;
    const data = event.plugindata?.data ?? {};
    if (data['error_code'] !== undefined) throw new JanusError(Number(data['error_code']), String(data['error']));
    return event;
  }

  async trickle(handle: number, candidate: unknown): Promise<void> {
    await this.request(`/${handle}`, { janus: 'trickle', candidate: candidate ?? { completed: true } });
  }

  async keepalive(): Promise<void> {
    await this.request('', { janus: 'keepalive' });
  }

  async destroy(): Promise<void> {
    if (this.closed) return;
    this.shut(new Error('the Janus session was closed'));
    await post(this.endpoint, `/${this.id}`, { janus: 'destroy', transaction: transactionId() }).catch(() => {});
  }

  private async request(
    path: string,
    body: Record<string, unknown>,
    transaction = transactionId(),
  ): Promise<JanusEvent> {
    if (this.closed) throw new Error('the Janus session is gone');
    return post(this.endpoint, `/${this.id}${path}`, { ...body, transaction });
  }

  private settle(transaction: string): Pending | undefined {
    const entry = this.pending.get(transaction);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.pending.delete(transaction);
    return entry;
  }

  private async poll(): Promise<void> {
    while (!this.closed) {
      try {
        const url = `${this.endpoint.url}/${this.id}?maxev=10&apisecret=${encodeURIComponent(this.endpoint.apiSecret)}`;
        // Janus holds a long poll up to 30 s and then answers with a keepalive.
        const response = await fetch(url, { signal: AbortSignal.timeout(45_000) });
        if (!response.ok) throw new Error(`the Janus long poll answered HTTP ${response.status}`);
        const body = (await response.json()) as JanusEvent | JanusEvent[];
        for (const event of Array.isArray(body) ? body : [body]) this.dispatch(event);
      } catch (err) {
        this.lose(err);
      }
    }
  }

  private dispatch(event: JanusEvent): void {
    if (event.janus === 'keepalive') return;
    if (event.janus === 'error') {
      const error = errorOf(event);
      // 458: no such session (Janus restarted, or timed us out).
      if (error.code === 458) this.lose(error);
      return;
    }
    if (event.janus === 'timeout') {
      this.lose(new Error('Janus timed the session out'));
      return;
    }
    const pending = event.transaction && event.janus === 'event' ? this.settle(event.transaction) : undefined;
    if (pending) {
      pending.resolve(event);
      return;
    }
    if (event.sender !== undefined) this.listeners.get(event.sender)?.(event);
  }

  private lose(err: unknown): void {
    if (this.closed) return;
    const error = err instanceof Error ? err : new Error(String(err));
    this.shut(error);
    this.onLost(error);
  }

  private shut(error: Error): void {
    this.closed = true;
    clearInterval(this.keepaliveTimer);
    for (const transaction of [...this.pending.keys()]) this.settle(transaction)?.reject(error);
    this.listeners.clear();
  }
}
