import type { Test } from 'tap';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load.js';

/** The configuration of this environment alone (no file, no flag). */
export const loadEnv = (env: Record<string, string>) => loadConfig({ env });

/** The start's error for this environment (a ConfigError), or a failure when it starts. */
export function refusal(t: Test, env: Record<string, string>): string {
  try {
    loadEnv(env);
  } catch (err) {
    t.type(err, ConfigError);
    return (err as Error).message;
  }
  t.fail(`started with ${JSON.stringify(env)}`);
  return '';
}
