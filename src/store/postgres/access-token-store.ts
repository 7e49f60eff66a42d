import type { AccessToken } from '../../engine/access/access-token.js';
import type { AsyncAccessTokenStore } from '../../engine/async-ports.js';
import { initialTokenKey, tokenFromRow, type TokenRow } from '../rows/access-token-row.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

/** The meeting-API access tokens on PostgreSQL, with the instance's "initial token issued" mark. */
export class PostgresAccessTokenStore implements AsyncAccessTokenStore {
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async insert(token: AccessToken): Promise<boolean> {
    const result = await this.db`INSERT INTO access_tokens (name, token_hash, created_at, last_used_at)
      VALUES (${token.name}, ${token.tokenHash}, ${token.createdAt}, ${token.lastUsedAt}) ON CONFLICT (name) DO NOTHING`;
    return result.count === 1;
  }

  async findByHash(tokenHash: Buffer): Promise<AccessToken | null> {
    const [row] = await this.db<TokenRow[]>`SELECT * FROM access_tokens WHERE token_hash = ${tokenHash}`;
    return row ? tokenFromRow(row) : null;
  }

  async list(): Promise<AccessToken[]> {
    const rows = await this.db<TokenRow[]>`
      SELECT * FROM access_tokens ORDER BY created_at COLLATE "C", name COLLATE "C"`;
    return rows.map(tokenFromRow);
  }

  async delete(name: string): Promise<boolean> {
    return (await this.db`DELETE FROM access_tokens WHERE name = ${name}`).count === 1;
  }

  async touch(name: string, at: string): Promise<void> {
    await this.db`UPDATE access_tokens SET last_used_at = ${at} WHERE name = ${name}`;
  }

  async initialTokenIssued(): Promise<boolean> {
    const [row] = await this.db<{ value: string }[]>`SELECT value FROM instance_meta WHERE key = ${initialTokenKey}`;
    return row?.value === 'true';
  }

  async markInitialTokenIssued(): Promise<void> {
    await this.db`INSERT INTO instance_meta (key, value) VALUES (${initialTokenKey}, 'true')
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
  }
}
