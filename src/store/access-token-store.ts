import type { AccessToken, AccessTokenStore } from '../engine/access/access-token.js';
import type { Db } from './database.js';
import { initialTokenKey, tokenFromRow, type TokenRow } from './rows/access-token-row.js';

export class SqliteAccessTokenStore implements AccessTokenStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO access_tokens (name, token_hash, created_at, last_used_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
      ),
      findByHash: db.prepare<[Buffer], TokenRow>('SELECT * FROM access_tokens WHERE token_hash = ?'),
      list: db.prepare<[], TokenRow>('SELECT * FROM access_tokens ORDER BY created_at, name'),
      delete: db.prepare<[string]>('DELETE FROM access_tokens WHERE name = ?'),
      touch: db.prepare<[string, string]>('UPDATE access_tokens SET last_used_at = ? WHERE name = ?'),
      getMeta: db.prepare<[string], { value: string }>('SELECT value FROM instance_meta WHERE key = ?'),
      setMeta: db.prepare<[string, string]>(
        'INSERT INTO instance_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
    };
  }

  insert(token: AccessToken): boolean {
    return this.statements.insert.run(token.name, token.tokenHash, token.createdAt, token.lastUsedAt).changes === 1;
  }

  findByHash(tokenHash: Buffer): AccessToken | null {
    const row = this.statements.findByHash.get(tokenHash);
    return row ? tokenFromRow(row) : null;
  }

  list(): AccessToken[] {
    return this.statements.list.all().map(tokenFromRow);
  }

  delete(name: string): boolean {
    return this.statements.delete.run(name).changes === 1;
  }

  touch(name: string, at: string): void {
    this.statements.touch.run(at, name);
  }

  initialTokenIssued(): boolean {
    return this.statements.getMeta.get(initialTokenKey)?.value === 'true';
  }

  markInitialTokenIssued(): void {
    this.statements.setMeta.run(initialTokenKey, 'true');
  }
}
