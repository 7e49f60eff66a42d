import { connect, createServer, type Socket } from 'node:net';
import type { Tap } from './api.js';

export interface CutProxy {
  /** http://127.0.0.1:<port>: the daemon, as seen through the proxy. */
  readonly url: string;
  /** Destroys every connection through the proxy now, as a dropped network would (new ones still pass). */
  cut(): number;
}

/**
 * A TCP proxy in front of a daemon whose connections a test can cut. Chromium's offline
 * emulation refuses new requests but leaves an open WebSocket alone; a real outage kills it.
 */
export async function cutProxy(t: Tap, target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of open) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  const proxyPort = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    cut() {
      const count = open.size;
      for (const socket of open) socket.destroy();
      return count;
    },
  };
}
