import { closeCodes, type ServerMessage } from '../protocol/live.js';

export interface LiveLinkOptions {
  readonly url: string;
  readonly onMessage: (message: ServerMessage) => void;
  /** live: the socket carries messages; reconnecting: it does not (the page shows a banner). */
  readonly onStatus: (status: 'live' | 'reconnecting') => void;
  /** The link is over: the server closed it with a final code, or the page gave up (`given_up`). */
  readonly onEnd: (code: number) => void;
  /** Sends a message the server answers (the page's own state, echoed to everyone): how a socket that survived an outage shows it still carries. */
  readonly probe: () => void;
}

/** Closed by the page itself after waiting too long, or refused on the way back in (she has left meanwhile). */
export const givenUp = 4000;

const firstRetryMs = 500;
const maxRetryMs = 10_000;
/** A socket that stayed open through an outage must answer the probe this fast, else it is replaced. */
const probeMs = 3000;
/** How long the page keeps trying: past this the server has long counted her as gone. */
const giveUpAfterMs = 120_000;

/**
 * The meeting's live connection, kept alive across network drops. A close the server did not
 * mean (no close code of ours, 1000 excepted) is retried with growing, jittered delays; the
 * browser's offline event shows the banner at once, and its online event retries now (or, when
 * the socket survived, probes it). A retry the server refuses while the service itself answers
 * means the session is over (she was away longer than the grace period): the link ends.
 */
export class LiveLink {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private retryTimer = 0;
  private probeTimer = 0;
  private lostSince: number | null = null;
  private closed = false;
  private readonly onOnline = () => this.backOnline();
  private readonly onOffline = () => this.lost();

  constructor(private readonly options: LiveLinkOptions) {
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOffline);
    this.open();
  }

  send(text: string): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(text);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOffline);
    window.clearTimeout(this.retryTimer);
    window.clearTimeout(this.probeTimer);
    this.socket?.close();
  }

  private open(): void {
    const socket = new WebSocket(this.options.url);
    this.socket = socket;
    let opened = false;
    socket.addEventListener('open', () => (opened = true));
    socket.addEventListener('message', (event) => {
      if (this.socket !== socket) return;
      this.heard();
      this.options.onMessage(JSON.parse(String(event.data)) as ServerMessage);
    });
    socket.addEventListener('close', (event) => {
      if (this.closed || this.socket !== socket) return;
      const final = event.code === 1000 || Object.values(closeCodes).includes(event.code as never);
      if (final) return this.end(event.code);
      this.lost();
      if (!opened) void this.refusedOrUnreachable();
      else this.retryLater();
    });
  }

  /** Something came through: the link is live again. */
  private heard(): void {
    window.clearTimeout(this.probeTimer);
    if (this.lostSince === null) return;
    this.lostSince = null;
    this.attempt = 0;
    this.options.onStatus('live');
  }

  private lost(): void {
    if (this.lostSince !== null || this.closed) return;
    this.lostSince = Date.now();
    this.options.onStatus('reconnecting');
  }

  private end(code: number): void {
    this.close();
    this.options.onEnd(code);
  }

  private retryLater(): void {
    window.clearTimeout(this.retryTimer);
    if (this.lostSince !== null && Date.now() - this.lostSince > giveUpAfterMs) return this.end(givenUp);
    // Not gated on navigator.onLine: it is only a hint (false on some networks that work), and a
    // retry while offline fails at once; the online event retries without waiting for the timer.
    const delay = Math.min(maxRetryMs, firstRetryMs * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.retryTimer = window.setTimeout(() => this.open(), delay);
  }

  /**
   * A new socket failed before it opened. Offline, or the service down: try again later. The
   * service up but the socket refused: her session no longer holds (the server counted her as
   * gone), and retrying would only be refused again.
   */
  private async refusedOrUnreachable(): Promise<void> {
    if (this.attempt > 0) {
      const up = await fetch('/healthz', { cache: 'no-store' }).then(
        (answer) => answer.ok,
        () => false,
      );
      if (this.closed) return;
      if (up) return this.end(givenUp);
    }
    this.retryLater();
  }

  private backOnline(): void {
    if (this.closed) return;
    const socket = this.socket;
    if (socket?.readyState === WebSocket.OPEN) {
      // The socket may have survived the outage, or may be dead without knowing it yet.
      window.clearTimeout(this.probeTimer);
      this.probeTimer = window.setTimeout(() => {
        if (this.socket !== socket || this.closed) return;
        this.socket = null;
        socket.close();
        this.open();
      }, probeMs);
      this.options.probe();
      return;
    }
    if (socket?.readyState === WebSocket.CONNECTING) return;
    window.clearTimeout(this.retryTimer);
    this.attempt = 0;
    this.open();
  }
}
