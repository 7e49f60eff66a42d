import { CliError } from './errors.js';
import type { CliIo } from './io.js';

const codes = { green: 32, red: 31, yellow: 33, dim: 2, bold: 1 } as const;
export type Colour = keyof typeof codes;

/** Text in a colour on a terminal, plain text everywhere else (pipes, files, CI logs). */
export function paint(io: CliIo, colour: Colour, text: string): string {
  return io.colour ? `\u001b[${codes[colour]}m${text}\u001b[0m` : text;
}

/**
 * Runs one long step and says so on standard error: "… title" before, "✓ title" or
 * "✗ title" after, so an operator sees what meetctl is doing while it waits on nginx or disk.
 * Standard output stays free for results (and --json).
 */
export async function step<T>(io: CliIo, title: string, work: () => T | Promise<T>): Promise<T> {
  io.err(`${paint(io, 'dim', '…')} ${title}\n`);
  try {
    const result = await work();
    io.err(`${paint(io, 'green', '✓')} ${title}\n`);
    return result;
  } catch (err) {
    io.err(`${paint(io, 'red', '✗')} ${title}\n`);
    throw err;
  }
}

/**
 * Whether a command may ask: only on a terminal and never with --yes. A question that may
 * not be asked is a usage error naming the flag that answers it.
 */
export function mayPrompt(io: CliIo, options: { yes?: unknown }): boolean {
  return io.interactive && options.yes !== true;
}

export function unansweredError(flag: string, question: string): CliError {
  return new CliError(
    'usage',
    `${flag} is required without a terminal or with --yes (it answers "${question}")`,
    `pass ${flag} on the command line`,
  );
}
