import { environmentFault } from '../environment-faults.js';
import type { CheckResult, DoctorCheck, DoctorContext } from './check.js';

/** One line of text, without control characters (a file name or a program's output could hold escapes). */
export function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('; ')
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
}

function clean(result: CheckResult): CheckResult {
  const { hint, ...rest } = result;
  return { ...rest, detail: oneLine(result.detail), ...(hint ? { hint: oneLine(hint) } : {}) };
}

/**
 * Runs every check, all at once (they are independent), in the order given. A check that
 * throws is a failure carrying its message: one broken check never hides the others.
 */
export async function runChecks(checks: readonly DoctorCheck[], ctx: DoctorContext): Promise<CheckResult[]> {
  return Promise.all(
    checks.map(async (c) => {
      try {
        return clean(await c.run(ctx));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        // A file doctor may not read (run as another user) or a full disk: the machine's, not a bug.
        const fault = environmentFault(err);
        if (fault)
          return clean({
            id: c.id,
            title: c.title,
            status: 'fail',
            detail: `could not check: ${fault.message}`,
            hint: fault.hint,
          });
        return clean({
          id: c.id,
          title: c.title,
          status: 'fail',
          detail: `the check itself failed: ${message}`,
          hint: 'this is a bug in meetctl doctor; please report it with the output above',
        });
      }
    }),
  );
}

export function failed(results: readonly CheckResult[]): CheckResult[] {
  return results.filter((r) => r.status === 'fail');
}
