import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { LicenceError, type LicenceFault } from '../licence/server-key.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';

/** Far above any real key (a few hundred bytes); a file larger than this is not one, whatever it holds. */
export const maxKeyBytes = 16 * 1024;

/** What the operator does next for each of the four faults. */
const faultHints: Record<LicenceFault, string> = {
  malformed: 'copy the whole key as it was issued: three base64url parts separated by dots',
  forged:
    'use a key issued by the licence authority this installation trusts (the built-in key, or SERVICE_LICENSE_PUBLIC_KEY for a private authority)',
  expired: 'ask the licence authority for a new key, then run meetctl install compat again',
  module: 'ask the licence authority for a key that includes this module',
};

export function licenceCliError(err: LicenceError): CliError {
  return new CliError('config', err.message, faultHints[err.fault]);
}

function malformed(detail: string): CliError {
  return licenceCliError(new LicenceError('malformed', `the server key is malformed: ${detail}`));
}

function readKeyFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    if (code === 'ENOENT') throw new CliError('config', `--key-file ${file} does not exist`);
    if (code === 'EISDIR') throw new CliError('config', `--key-file ${file} is a directory, not a file`);
    throw new CliError('environment', `--key-file ${file} cannot be read (${code})`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new CliError('config', `--key-file ${file} is a directory, not a file`);
    // Read at most one byte past the limit: a huge file (or /dev/zero) is refused without being read whole.
    const buffer = Buffer.alloc(maxKeyBytes + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxKeyBytes)
        throw malformed(`--key-file ${file} holds more than ${maxKeyBytes} bytes; a server key is a few hundred`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The server key from --key, --key-file or SERVICE_SERVER_KEY (in that order; the two flags
 * exclude each other). White space anywhere is dropped: a compact JWS has none, and a key
 * pasted from a mail is often wrapped.
 */
export function serverKeyFrom(options: { key?: unknown; keyFile?: unknown }, io: CliIo): string {
  const flagKey = typeof options.key === 'string' ? options.key : null;
  const keyFile = typeof options.keyFile === 'string' ? options.keyFile : null;
  if (flagKey !== null && keyFile !== null)
    throw new CliError('usage', '--key and --key-file exclude each other; give one', 'pass the key once');
  let raw: string;
  if (flagKey !== null) raw = flagKey;
  else if (keyFile !== null) raw = readKeyFile(keyFile);
  else if (io.env.SERVICE_SERVER_KEY !== undefined && io.env.SERVICE_SERVER_KEY !== '') raw = io.env.SERVICE_SERVER_KEY;
  else
    throw new CliError(
      'usage',
      'a server key is required: --key KEY, --key-file PATH or SERVICE_SERVER_KEY',
      'the licence authority issues keys with meetctl license issue',
    );
  if (Buffer.byteLength(raw, 'utf8') > maxKeyBytes)
    throw malformed(`it is ${Buffer.byteLength(raw, 'utf8')} bytes long; a server key is a few hundred`);
  const key = raw.replace(/\s+/g, '');
  if (key === '') throw malformed('it is empty');
  return key;
}
