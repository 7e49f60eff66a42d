import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { giveToDirectoryOwner } from '../platform/file-owner.js';
import type { Sql } from '../platform/postgres.js';

export const signingKeyFileName = 'signing-key';

/** How many random bytes a new key has (HS256: as long as the hash). */
const keyBytes = 32;

/**
 * The HS256 key of join and session tokens: made on first start, kept in the data
 * directory (0600), so sessions survive a restart and no operator has to invent a secret.
 */
export function loadOrCreateSigningKey(dataDir: string): Uint8Array {
  const file = join(dataDir, signingKeyFileName);
  const found = readSigningKeyFile(dataDir);
  if (found !== null) return found;
  const key = randomBytes(keyBytes);
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

/** The key of the data directory's file, or null when there is none (yet). */
export function readSigningKeyFile(dataDir: string): Uint8Array | null {
  try {
    return Buffer.from(readFileSync(join(dataDir, signingKeyFileName), 'utf8').trim(), 'base64url');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return null;
  }
}

/**
 * Where the signing key lives (issue 34 point 1): "get or create the key once". Every daemon of an
 * installation answers the same key, so a token one node signed verifies on every other.
 */
export interface SigningKeyStore {
  getOrCreate(): Promise<Uint8Array>;
}

/** The key in the data directory's file (SQLite installations: today's behaviour, unchanged). */
export function fileSigningKey(dataDir: string): SigningKeyStore {
  return { getOrCreate: async () => loadOrCreateSigningKey(dataDir) };
}

/**
 * The key in PostgreSQL (meet_engine.signing_key, migration 021), for every node of a cluster.
 * Daemons starting at once on an empty database each offer a new key; the first INSERT wins
 * (ON CONFLICT DO NOTHING) and all of them read back the one row.
 */
export function postgresSigningKey(sql: Sql): SigningKeyStore {
  return {
    async getOrCreate() {
      await sql`INSERT INTO meet_engine.signing_key (id, key) VALUES (1, ${randomBytes(keyBytes)})
        ON CONFLICT (id) DO NOTHING`;
      const [row] = await sql<{ key: Buffer }[]>`SELECT key FROM meet_engine.signing_key WHERE id = 1`;
      if (!row)
        throw new Error('meet_engine.signing_key has no key after it was made (is another process deleting it?)');
      return row.key;
    },
  };
}
