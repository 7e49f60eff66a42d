import { connect, type Socket } from 'node:net';

/**
 * One keep-alive HTTP/1.1 connection that sends one GET at a time and reads back only the
 * status: a few µs of client CPU per request where node:http spends far more, so the keeper
 * can poll tens of thousands of waiting requests in time. Answers must carry Content-Length
 * (Fastify's do).
 */
export class RawConnection {
  private socket: Socket | null = null;
  private connecting: Promise<Socket> | null = null;
  private buffer = '';
  private pending: { resolve: (status: number) => void; reject: (err: Error) => void } | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  static forUrl(url: string): RawConnection {
    const { hostname, port } = new URL(url);
    return new RawConnection(hostname, Number(port));
  }

  async get(path: string, cookieHeader: string): Promise<number> {
    const socket = this.socket ?? (await this.open());
    return new Promise<number>((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nCookie: ${cookieHeader}\r\n\r\n`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): Promise<Socket> {
    this.connecting ??= new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port, noDelay: true });
      socket.setEncoding('latin1');
      socket.once('connect', () => {
        this.socket = socket;
        this.connecting = null;
        resolve(socket);
      });
      socket.on('data', (chunk: string) => this.onData(chunk));
      const gone = (err?: Error) => {
        if (this.socket === socket) this.socket = null;
        this.connecting = null;
        this.buffer = '';
        const pending = this.pending;
        this.pending = null;
        pending?.reject(err ?? new Error('connection closed'));
        reject(err ?? new Error('connection closed'));
      };
      socket.once('error', gone);
      socket.once('close', () => gone());
    });
    return this.connecting;
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const head = this.buffer.slice(0, headerEnd);
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      const end = headerEnd + 4 + length;
      if (this.buffer.length < end) return;
      this.buffer = this.buffer.slice(end);
      const pending = this.pending;
      this.pending = null;
      pending?.resolve(Number(head.slice(9, 12)));
    }
  }
}
