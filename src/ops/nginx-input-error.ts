/** A value that cannot go into the site file; `field` names the flag or setting at fault. */
export class NginxInputError extends Error {
  override readonly name = 'NginxInputError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field} ${message}`);
  }
}
