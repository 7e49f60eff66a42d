import type { Server } from 'node:http';

/**
 * The address a listener is reachable at, for the "listening on" log line of both listeners:
 * the configured host (an IPv6 one bracketed) and the port the server really bound (port 0
 * picks one). `configured` is config's ListenAddress, spelled out because platform/ imports no layer above it.
 */
export function listeningUrl(server: Server, configured: { readonly host: string; readonly port: number }): string {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : configured.port;
  const host = configured.host.includes(':') ? `[${configured.host}]` : configured.host;
  return `http://${host}:${port}`;
}

/**
 * Where a one-time link sets an account's password (the daemon's first start, meetctl user): the
 * secret is in the fragment, which no request line, Referer or log carries.
 */
export function accountLinkUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/set-password#${token}`;
}
