import { createPublicKey } from 'node:crypto';
import { parse as parseToml } from 'smol-toml';
import { settings, type SettingKey } from '../config/settings.js';

/**
 * Where a setting that `meetctl install` writes comes from, in the daemon's own order: the
 * flag, else the environment of the install, else an earlier install's env-file line (so a
 * second install changes nothing), else room-defaults.toml (left there: no env line). Each
 * caller decides what "none of these" means: loopback for the listeners, a question for the
 * public address, the built-in key for the licence authority.
 */

export type GivenSource = 'flag' | 'environment' | 'kept' | 'room-defaults';

export interface GivenValue {
  /** The env-file line's value; null when room-defaults.toml names it (install writes no line). */
  readonly value: string | null;
  readonly source: GivenSource;
}

export interface GivenInput {
  readonly flag?: string | undefined;
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly existingEnvValues: Readonly<Record<string, string>>;
  readonly existingRoomDefaults: string | null;
}

export function inRoomDefaults(text: string | null, path: readonly string[]): boolean {
  if (text === null) return false;
  let node: unknown;
  try {
    node = parseToml(text);
  } catch {
    return false; // the loader reported it already
  }
  for (const part of path)
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node !== undefined;
}

/** The value a setting is given before any default; null when nothing gives it. Values are checked by the setting's parser. */
export function givenValue(key: SettingKey, input: GivenInput): GivenValue | null {
  const row = settings[key];
  const given: [string | undefined, GivenSource][] = [
    [input.flag, 'flag'],
    [input.environment[row.env], 'environment'],
    [input.existingEnvValues[row.env], 'kept'],
  ];
  for (const [value, source] of given) {
    if (value === undefined || value.trim() === '') continue;
    row.parse(value);
    return { value: value.trim(), source };
  }
  return inRoomDefaults(input.existingRoomDefaults, row.toml) ? { value: null, source: 'room-defaults' } : null;
}

/**
 * A public key as the one line an env file can hold: the PEM's base64 body (DER, SPKI), which
 * SERVICE_LICENSE_PUBLIC_KEY's parser reads back. Inline PEM spans lines, and an @path may
 * name a file the service's user cannot read.
 */
export function oneLinePublicKey(pem: string): string {
  return createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64');
}
