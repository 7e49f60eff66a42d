// A small TLS reverse proxy for browser tests: one https origin on loopback in front of the
// engine and compat listeners, as nginx is in production (X-Forwarded-Proto https and
// X-Forwarded-For set, Host kept, WebSocket upgrades passed through). The certificate is
// self-signed, made with openssl at test time; Chromium is told to ignore certificate errors.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tap } from './api.js';

export interface TlsProxy {
  readonly url: string;
  readonly port: number;
}

/** A self-signed certificate for 127.0.0.1 and localhost (P-256, one day). */
export function selfSignedCertificate(t: Tap): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'meet-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'pipe' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

type Target = { host: string; port: number };

function targetOf(url: string): Target {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}

// Hop-by-hop headers are the proxy's own business, not the upstream's.
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

function forwardedHeaders(req: IncomingMessage): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers))
    if (!hopByHop.has(name) && !name.startsWith('x-forwarded-')) headers[name] = value;
  headers['x-forwarded-proto'] = 'https';
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '127.0.0.1';
  headers['x-forwarded-host'] = req.headers.host ?? '';
  return headers;
}

/**
 * Listens on https://127.0.0.1:`port` and sends each request to `compat` when `toCompat`
 * says so for its path, else to `engine` (the WebSocket upgrade included). Closed at teardown.
 */
export async function startTlsProxy(
  t: Tap,
  options: { port: number; engine: string; compat: string; toCompat: (path: string) => boolean },
): Promise<TlsProxy> {
  const engine = targetOf(options.engine);
  const compat = targetOf(options.compat);
  const pick = (url: string | undefined): Target =>
    options.toCompat(new URL(url ?? '/', 'https://proxy.invalid').pathname) ? compat : engine;
  const tunnels = new Set<Socket>();
  const server: Server = createServer(selfSignedCertificate(t), (req, res) => {
    const target = pick(req.url);
    const upstream = httpRequest(
      { ...target, method: req.method, path: req.url, headers: forwardedHeaders(req) },
      (answer) => {
        const headers: IncomingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!hopByHop.has(name)) headers[name] = value;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const target = pick(req.url);
    const upstream = connect(target.port, target.host, () => {
      const headers = forwardedHeaders(req);
      const lines = [
        `${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`,
        'Connection: Upgrade',
        `Upgrade: ${req.headers.upgrade ?? 'websocket'}`,
      ];
      for (const [name, value] of Object.entries(headers))
        for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) lines.push(`${name}: ${v}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    tunnels.add(socket).add(upstream);
    const close = () => {
      socket.destroy();
      upstream.destroy();
      tunnels.delete(socket);
      tunnels.delete(upstream);
    };
    socket.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const s of tunnels) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `https://127.0.0.1:${options.port}`, port: options.port };
}
