// meetctl in this process: main() of the built CLI (dist/cli/main.js, the code bin/meetctl.js
// runs) with an io that captures what it writes. A Node start per call costs 0.3 s on a quiet
// machine and seconds on a loaded one; loading the built modules once costs less than
// transpiling their sources in every test process. Tests about the process itself (exit status
// seen by a shell, a terminal, signals, `serve`, locks held by another pid, bin/meetctl.js)
// use runMeetctl (daemon.ts).
import type { CliIo } from '../../src/cli/io.js';
import type { main as Main } from '../../src/cli/main.js';
import type { CliResult } from './daemon.js';

let built: Promise<{ main: typeof Main }> | null = null;

/** The built CLI's main(), loaded on first use (typed by its source). */
export function builtMain(): Promise<typeof Main> {
  built ??= import(new URL('../../dist/cli/main.js', import.meta.url).href) as Promise<{ main: typeof Main }>;
  return built.then((module) => module.main);
}

/**
 * Runs `meetctl ARGS` in this process with only PATH and `env` as its environment, on no
 * terminal and without colour (what runMeetctl's child sees: pipes on every stream).
 */
export async function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  /** What standard input holds (`--password-file -`); absent: the command cannot read it. */
  stdin?: string,
): Promise<CliResult> {
  const main = await builtMain();
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    env: { PATH: process.env.PATH ?? '', ...env },
    interactive: false,
    colour: false,
    ...(stdin === undefined ? {} : { readStdin: async () => stdin }),
  };
  const code = await main(['node', 'meetctl', ...args], io);
  return { code, stdout, stderr };
}
