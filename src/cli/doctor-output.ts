import type { CliIo } from './io.js';
import { paint, type Colour } from './ui.js';
import type { CheckResult, CheckStatus } from '../ops/doctor/check.js';

const marks: Record<CheckStatus, { mark: string; colour: Colour }> = {
  ok: { mark: '✓', colour: 'green' },
  warn: { mark: '!', colour: 'yellow' },
  fail: { mark: '✗', colour: 'red' },
  skip: { mark: '-', colour: 'dim' },
};

export function tally(results: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const r of results) counts[r.status] += 1;
  return counts;
}

/**
 * One line per check, its hint beneath a warning or a failure, and a count at the end. The
 * report goes to standard output, so it is coloured only when that is a terminal too
 * (`meetctl doctor | less` from a terminal stays plain).
 */
export function renderText(terminal: CliIo, results: readonly CheckResult[]): string {
  const io = { ...terminal, colour: terminal.colour && terminal.interactive };
  const lines: string[] = [];
  for (const r of results) {
    const { mark, colour } = marks[r.status];
    lines.push(`${paint(io, colour, mark)} ${r.title}: ${r.detail}`);
    if (r.hint && (r.status === 'fail' || r.status === 'warn')) lines.push(`    hint: ${r.hint}`);
  }
  const n = tally(results);
  lines.push('', `${n.ok} ok, ${n.warn} warning${n.warn === 1 ? '' : 's'}, ${n.fail} failed, ${n.skip} skipped`);
  return `${lines.join('\n')}\n`;
}

/** {status, counts, checks}: status is fail when any check failed, warn when any warned, else ok. */
export function renderJson(results: readonly CheckResult[]): string {
  const counts = tally(results);
  const status = counts.fail > 0 ? 'fail' : counts.warn > 0 ? 'warn' : 'ok';
  return `${JSON.stringify({ status, counts, checks: results }, null, 2)}\n`;
}
