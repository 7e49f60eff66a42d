import { check, fail, ok, warn } from './check.js';

/** End of life of the Node lines the service still runs on but should leave. */
const endOfLife: Record<number, string> = { 20: '2026-04-30' };

/**
 * The Node version against package.json's engines (>=20.19 <21 || >=22): older is a failure,
 * 20 works but is past its end of life, an odd (short-lived, non-LTS) line is a warning.
 */
export function judgeNodeVersion(version: string, now: Date) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) return fail(`cannot read the version ${JSON.stringify(version)}`, 'install Node 22 or 24 (LTS)');
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const shown = `Node ${match[0].replace(/^v/, '')}`;
  if (major < 20 || (major === 20 && minor < 19) || major === 21) {
    return fail(
      `${shown} is not supported (needs 20.19 or later, or 22 and later)`,
      'install Node 22 or 24 (LTS), e.g. from the NodeSource or Debian packages',
    );
  }
  const eol = endOfLife[major];
  if (eol !== undefined && now.getTime() >= Date.parse(eol)) {
    return warn(
      `${shown} works but reached its end of life on ${eol}: no more security fixes`,
      'move to Node 22 or 24 (LTS)',
    );
  }
  if (major % 2 === 1) return warn(`${shown} is not a long-term-support line`, 'prefer an even (LTS) line: 22 or 24');
  return ok(shown);
}

export const nodeVersionCheck = check('node', 'Node version', (ctx) => judgeNodeVersion(ctx.nodeVersion, ctx.now));
