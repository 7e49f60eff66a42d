/** A configuration problem the operator must fix; the CLI prints it and exits 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly exitCode = 2;
}
