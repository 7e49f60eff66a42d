/**
 * The machine lacks something the service needs (a program, a permission, a writable disk):
 * not a bug and not a setting to fix, so the CLI prints it with `hint` and exits 69.
 */
export class EnvironmentError extends Error {
  override readonly name = 'EnvironmentError';
  readonly exitCode = 69;
  constructor(
    message: string,
    readonly hint: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
