/**
 * The one table of meetctl's failures. Each kind has one exit code and a default hint;
 * a thrown CliError may carry a more precise hint. main.ts renders every kind the same way:
 *
 *   meetctl: <message>
 *     hint: <hint>
 */
export const cliErrorKinds = {
  /** The command line is wrong: an unknown flag, a missing flag, a required answer that cannot be prompted. */
  usage: { exitCode: 64, hint: "see the command's --help for its flags" },
  /** A setting, a file the operator wrote, or a server key is wrong; nothing was written. */
  config: { exitCode: 2, hint: 'fix the value named above and run the command again' },
  /** The request is understood but refused: a duplicate, a file that differs, a failed check. */
  refused: { exitCode: 1, hint: 'nothing was changed' },
  /** The machine lacks something: a program, a permission, a free port, a lock held too long. */
  environment: { exitCode: 69, hint: 'run `meetctl doctor` to see what the machine lacks' },
  /** A bug: the message and stack are printed so it can be reported. */
  internal: { exitCode: 70, hint: 'this is a bug in meetctl; please report it with the output above' },
} as const;

export type CliErrorKind = keyof typeof cliErrorKinds;

export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;
  readonly hint: string;

  constructor(
    readonly kind: CliErrorKind,
    message: string,
    hint?: string,
  ) {
    super(message);
    this.exitCode = cliErrorKinds[kind].exitCode;
    this.hint = hint ?? cliErrorKinds[kind].hint;
  }
}

/** The two lines every CliError prints on standard error. */
export function renderCliError(err: CliError): string {
  return `meetctl: ${err.message}\n  hint: ${err.hint}\n`;
}
