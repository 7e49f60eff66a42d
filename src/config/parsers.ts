// Each parser turns a raw value (a string from env or a flag, or a TOML value) into a typed
// value, or throws a sentence that completes "<VARIABLE> ...".

export class InvalidValue extends Error {}

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

function text(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  throw new InvalidValue(`must be a string (got ${JSON.stringify(raw)})`);
}

export function oneOf<T extends string>(...allowed: T[]) {
  return (raw: unknown): T => {
    const value = text(raw).trim();
    if ((allowed as string[]).includes(value)) return value as T;
    throw new InvalidValue(`must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  };
}

export function optionalOneOf<T extends string>(...allowed: T[]) {
  const strict = oneOf(...allowed);
  return (raw: unknown): T | null => (text(raw).trim() === '' ? null : strict(raw));
}

export function listenAddress(raw: unknown): ListenAddress {
  const value = text(raw).trim();
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new InvalidValue(
      `must be host:port with a port from 0 to 65535, e.g. 0.0.0.0:3000 (got ${JSON.stringify(value)})`,
    );
  }
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
  return Object.freeze({ host, port });
}

export function httpUrl(raw: unknown): string {
  const value = text(raw).trim();
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidValue(`must be an http:// or https:// URL (got ${JSON.stringify(value)})`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * Where people reach the service: an http(s) origin, perhaps with a path prefix, no query or
 * fragment (join links are built by appending /room/...).
 */
export function publicUrl(raw: unknown): string {
  const value = httpUrl(raw);
  const url = new URL(value);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new InvalidValue(
      `must be an address without user, query or fragment, such as https://meet.example.org (got ${JSON.stringify(value)})`,
    );
  return value;
}

/** A secret may be absent (feature off), but a value that is set must hold more than white space. */
export function secret(raw: unknown): string {
  const value = text(raw);
  if (value.trim() === '')
    throw new InvalidValue('must not be empty or white space when set; leave it unset to turn the feature off');
  if (value !== value.trim()) throw new InvalidValue('must not start or end with white space');
  return value;
}

export function plainString(raw: unknown): string {
  return text(raw).trim();
}

export function path(raw: unknown): string {
  const value = text(raw).trim();
  if (value === '') throw new InvalidValue('must be a non-empty path');
  return value;
}

/** Comma-separated in env and flags, an array of strings in TOML. */
export function list(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw.map(text) : text(raw).split(',');
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

export function originList(raw: unknown): string[] {
  const origins = list(raw);
  for (const origin of origins) {
    if (origin !== "'self'" && !/^https?:\/\/[A-Za-z0-9.*-]+(:\d{1,5})?$/.test(origin)) {
      throw new InvalidValue(`must list origins such as https://lms.example.org (got ${JSON.stringify(origin)})`);
    }
  }
  return origins;
}

export function boolean(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  const value = text(raw).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off', ''].includes(value)) return false;
  throw new InvalidValue(`must be one of true, false (got ${JSON.stringify(value)})`);
}

export function integerBetween(min: number, max: number) {
  return (raw: unknown): number => {
    const value = typeof raw === 'number' ? raw : Number(text(raw).trim());
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new InvalidValue(`must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
    }
    return value;
  };
}
