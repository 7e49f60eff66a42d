import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ListenAddress } from '../config/parsers.js';
import { listeningUrl } from '../platform/listening-url.js';
import type { ServiceMetrics } from './metrics.js';

/**
 * The metrics' own listener (SERVICE_METRICS_ADDR): GET /metrics and nothing else. Not a route
 * of the engine or compat listener, so nginx, which proxies those, never exposes it; config/
 * keeps it on loopback unless the operator opts in.
 */
export interface MetricsListener {
  readonly url: string;
  /** Stops accepting and waits for a scrape in flight. */
  close(): Promise<void>;
  /** For an exit that cannot wait. */
  closeNow(): void;
}

export interface MetricsLog {
  error(obj: object, msg: string): void;
}

function answer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export async function listenMetrics(
  addr: ListenAddress,
  metrics: ServiceMetrics,
  log: MetricsLog,
): Promise<MetricsListener> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return answer(res, 404, 'not found: the metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return answer(res, 405, 'method not allowed: GET /metrics\n', { Allow: 'GET, HEAD' });
    metrics.registry.metrics().then(
      (text) => answer(res, 200, req.method === 'HEAD' ? '' : text, { 'Content-Type': metrics.registry.contentType }),
      (err: unknown) => {
        log.error({ err }, 'metrics could not be collected');
        answer(res, 500, 'metrics could not be collected\n');
      },
    );
  });
  // A scraper holds one keep-alive connection; a stop must not wait for it.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: addr.host, port: addr.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    url: `${listeningUrl(server, addr)}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
    closeNow: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
