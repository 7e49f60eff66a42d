import { isIP } from 'node:net';
import type { ListenAddress } from './parsers.js';

/** 127.0.0.0/8, ::1 (and ::ffff:127.x), localhost: only this machine reaches an address so named. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

/**
 * The metrics listener answers without a token (Prometheus scrapes it) and tells how busy the
 * service is, so it stays on loopback unless the operator says in a second setting that another
 * address is meant (a scraper on another machine, behind the operator's own firewall).
 */
export function metricsProblems(addr: ListenAddress | null | undefined, allowRemote: boolean | undefined): string[] {
  if (!addr || allowRemote === true || isLoopbackHost(addr.host)) return [];
  const shown = addr.host.includes(':') ? `[${addr.host}]:${addr.port}` : `${addr.host}:${addr.port}`;
  return [
    `SERVICE_METRICS_ADDR must be a loopback address such as 127.0.0.1:9464 (got "${shown}"): metrics answer without a token; set SERVICE_METRICS_ALLOW_REMOTE=true to listen there anyway`,
  ];
}
