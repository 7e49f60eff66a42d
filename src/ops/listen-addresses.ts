import { isLoopbackHost } from '../config/loopback.js';
import type { ListenAddress } from '../config/parsers.js';
import { settings, type Config } from '../config/settings.js';
import { givenValue, type GivenSource } from './given-values.js';

/**
 * Where the two listeners bind after `meetctl install`. nginx runs on the same machine and is
 * the edge (TLS, the room and gateway limits, the client's address): a listener on a public
 * address lets clients go around all of that, so install writes loopback addresses unless the
 * operator names others.
 */

export const listenerKeys = ['httpAddr', 'compatHttpAddr'] as const;
export type ListenerKey = (typeof listenerKeys)[number];

/** Loopback, on the port the setting's default listens on. */
export function loopbackDefault(key: ListenerKey): string {
  const fallback = settings[key].fallback;
  if (typeof fallback !== 'string') throw new Error(`${settings[key].env} has no default address`);
  return `127.0.0.1:${settings[key].parse(fallback).port}`;
}

/** Whatever is not loopback (0.0.0.0, ::, an interface address, a host name) is reached from outside. */
export function isPublicListener(addr: ListenAddress): boolean {
  return !isLoopbackHost(addr.host);
}

export type ListenerSource = GivenSource | 'loopback';

export interface ResolvedListener {
  readonly env: string;
  /** The env-file line's value; null: install leaves the env file without one (room-defaults.toml names it). */
  readonly value: string | null;
  readonly address: ListenAddress;
  readonly source: ListenerSource;
}

export interface ListenerInput {
  /** Flag values by setting (--http-addr, --compat-http-addr). */
  readonly flags: Readonly<Partial<Record<ListenerKey, string>>>;
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly existingEnvValues: Readonly<Record<string, string>>;
  readonly existingRoomDefaults: string | null;
  /** The configuration as loaded from all of the above. */
  readonly config: Config;
}

/**
 * Each listener: the flag, else the environment, else an earlier install's line (a second
 * install changes nothing), else room-defaults.toml's value (left there, no env line), else
 * loopback. Values are checked by the setting's own parser.
 */
export function resolveListeners(input: ListenerInput): ResolvedListener[] {
  return listenerKeys.map((key) => {
    const row = settings[key];
    const given = givenValue(key, { ...input, flag: input.flags[key] });
    if (given?.value === null)
      return { env: row.env, value: null, address: input.config[key], source: 'room-defaults' };
    if (given) return { env: row.env, value: given.value, address: row.parse(given.value), source: given.source };
    const loopback = loopbackDefault(key);
    return { env: row.env, value: loopback, address: row.parse(loopback), source: 'loopback' };
  });
}
