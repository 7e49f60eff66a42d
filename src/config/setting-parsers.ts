/** Parsers of single settings whose rules belong to one row of the settings table. */
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import * as p from './parsers.js';

export interface PortRange {
  readonly min: number;
  readonly max: number;
}

/** Two UDP ports, low-high, both included, 1024 or above: the media ports Janus may use. */
export function portRange(raw: unknown): PortRange {
  const value = p.plainString(raw).trim();
  const match = /^(\d{4,5})-(\d{4,5})$/.exec(value);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (!match || min < 1024 || max > 65535 || min > max) {
    throw new p.InvalidValue(
      `must be two ports from 1024 to 65535, low-high, such as 40000-40999 (got ${JSON.stringify(value)})`,
    );
  }
  return Object.freeze({ min, max });
}

export function ipv4(raw: unknown): string {
  const value = p.plainString(raw).trim();
  if (isIP(value) !== 4)
    throw new p.InvalidValue(`must be an IPv4 address, such as 203.0.113.7 (got ${JSON.stringify(value)})`);
  return value;
}

/** A shared secret with Janus: URL-safe text of 16 characters or more (it goes into Janus's configuration and requests). */
export function janusSecret(raw: unknown): string {
  const value = p.secret(raw);
  if (!/^[A-Za-z0-9_-]{16,}$/.test(value))
    throw new p.InvalidValue('must be 16 or more characters from A-Z, a-z, 0-9, _ and -');
  return value;
}

/** An IP address or a CIDR block such as 10.0.0.0/8; null when it is neither. */
function ipOrCidr(entry: string): boolean | null {
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (!cidr) return isIP(entry.replace(/^\[(.*)\]$/, '$1')) !== 0 ? true : null;
  const family = isIP(cidr[1]!);
  return family !== 0 && Number(cidr[2]) <= (family === 4 ? 32 : 128) ? true : null;
}

/** '' (hosts name no tenant) or a host-name suffix starting with a dot, lower-cased: `.example.org`. */
export function hostSuffix(raw: unknown): string {
  const value = p.plainString(raw).toLowerCase();
  if (value === '' || /^(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/.test(value)) return value;
  throw new p.InvalidValue(
    `must be empty or a host-name suffix starting with a dot, such as .meet.example.org (got ${JSON.stringify(value)})`,
  );
}

/** Callback targets let through the private-address guard: host, host:port, an IP address or a CIDR block. */
export function callbackAllowList(raw: unknown): string[] {
  const entries = p.list(raw);
  for (const entry of entries) {
    if (ipOrCidr(entry) || (!entry.includes('/') && /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(entry)))
      continue;
    throw new p.InvalidValue(
      `must list host, host:port, IP addresses or CIDR blocks such as 10.0.0.0/8 (got ${JSON.stringify(entry)})`,
    );
  }
  return entries;
}

/**
 * Proxies whose X-Forwarded-For is believed: IP addresses or CIDR blocks only (a name could be
 * re-pointed). `none` trusts nobody: an empty environment variable means "unset" to the loader.
 */
export function proxyList(raw: unknown): string[] {
  if (typeof raw === 'string' && raw.trim().toLowerCase() === 'none') return [];
  const entries = p.list(raw);
  for (const entry of entries) {
    if (!ipOrCidr(entry))
      throw new p.InvalidValue(
        `must list IP addresses or CIDR blocks such as 10.0.0.0/8 (got ${JSON.stringify(entry)})`,
      );
  }
  return entries.map((entry) => entry.replace(/^\[(.*)\]$/, '$1'));
}

/**
 * An Ed25519 public key in PEM, given inline, as @path, or as the PEM's base64 body on one
 * line (what `meetctl install` writes: an env file holds one line per value, and the service
 * user may not be able to read the file an operator named); returns the PEM text.
 */
export function ed25519PublicKey(raw: unknown): string {
  const value = p.plainString(raw);
  let pem = value;
  const oneLine = value.trim();
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(oneLine))
    pem = `-----BEGIN PUBLIC KEY-----\n${oneLine}\n-----END PUBLIC KEY-----\n`;
  if (value.startsWith('@')) {
    try {
      pem = readFileSync(value.slice(1), 'utf8');
    } catch (err) {
      throw new p.InvalidValue(
        `names a file that cannot be read: ${value.slice(1)} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
  }
  let type: string | undefined;
  try {
    type = createPublicKey(pem).asymmetricKeyType;
  } catch {
    throw new p.InvalidValue(
      'must be a public key in PEM (-----BEGIN PUBLIC KEY-----), inline, as @path or as its base64 body on one line',
    );
  }
  if (type !== 'ed25519') throw new p.InvalidValue(`must be an Ed25519 public key (got ${type ?? 'unknown'})`);
  return pem;
}

/**
 * The gateway's HS256 secret: 32 bytes or more (RFC 7518 §3.2: a key at least as long as the
 * hash). A shorter one can be recovered offline from a single token an application handed out.
 */
export function appSecret(raw: unknown): string {
  const value = p.secret(raw);
  if (Buffer.byteLength(value, 'utf8') < 32)
    throw new p.InvalidValue(
      'must hold at least 32 bytes (HS256 with a shorter secret can be guessed offline from one token)',
    );
  return value;
}
