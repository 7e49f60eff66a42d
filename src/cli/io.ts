/** Where a command writes, which environment it reads and what kind of terminal it runs on; tests pass their own. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Standard input and output are a terminal: a command may prompt (unless --yes). */
  readonly interactive: boolean;
  /** Standard error is a terminal and NO_COLOR is unset: progress and results may be coloured. */
  readonly colour: boolean;
  /** All of standard input as text (`--password-file -`); absent: nothing to read. */
  readonly readStdin?: () => Promise<string>;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
  colour: process.stderr.isTTY === true && (process.env.NO_COLOR ?? '') === '',
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};
