import type { AccessToken } from '../../engine/access/access-token.js';

/** A row of `access_tokens`, the same on both stores (the hash a BLOB or a bytea: a Buffer). */
export interface TokenRow {
  name: string;
  token_hash: Buffer;
  created_at: string;
  last_used_at: string | null;
}

export const tokenFromRow = (row: TokenRow): AccessToken => ({
  name: row.name,
  tokenHash: row.token_hash,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

/** The key of `instance_meta` whose value 'true' marks the first access token as issued. */
export const initialTokenKey = 'initial_token_issued';
