import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { giveToDirectoryOwner } from '../platform/file-owner.js';

export const signingKeyFileName = 'signing-key';

/**
 * The HS256 key of join and session tokens: made on first start, kept in the data
 * directory (0600), so sessions survive a restart and no operator has to invent a secret.
 */
export function loadOrCreateSigningKey(dataDir: string): Uint8Array {
  const file = join(dataDir, signingKeyFileName);
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    giveToDirectoryOwner(file);
    return key;
  } catch (err) {
    // Another process won the race to create it: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSigningKey(dataDir);
    throw err;
  }
}
