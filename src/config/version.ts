import { readFileSync } from 'node:fs';

/**
 * The package's version (package.json), as `meetctl --version`, the start line of `serve` and
 * `/healthz` report it. Read from the file rather than written into the code at build time,
 * so the version an operator sees is the one of the package installed, never a stale build.
 * The file sits two levels up from both src/config/ and dist/config/.
 */
function readVersion(): string {
  try {
    const parsed = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof parsed.version === 'string' ? parsed.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const serviceVersion = readVersion();
