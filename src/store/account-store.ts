import type { Account, AccountLink, AccountSession, AccountStore } from '../engine/accounts/account.js';
import type { Db } from './database.js';
import * as accountRows from './rows/account-row.js';
import { sqliteColumns, type SqliteTypes } from './rows/columns.js';

type Row = accountRows.AccountRow<SqliteTypes>;
const toAccount = (row: Row): Account => accountRows.accountFromRow(row, sqliteColumns);

/**
 * Accounts, one-time links and sessions. Nothing is kept in memory: meetctl disables or removes
 * an account from another process, and the daemon's next request must see it.
 */
export class SqliteAccountStore implements AccountStore {
  private readonly statements;
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
    this.statements = {
      insert: db.prepare(
        `INSERT INTO accounts (account_id, email, name, admin, disabled, source, password_hash, created_at, updated_at)
         VALUES (@account_id, @email, @name, @admin, @disabled, @source, @password_hash, @created_at, @updated_at)
         ON CONFLICT DO NOTHING`,
      ),
      byEmail: db.prepare<[string], Row>('SELECT * FROM accounts WHERE email = ?'),
      byId: db.prepare<[string], Row>('SELECT * FROM accounts WHERE account_id = ?'),
      list: db.prepare<[], Row>('SELECT * FROM accounts ORDER BY email'),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM accounts'),
      update: db.prepare(
        `UPDATE accounts SET name = @name, admin = @admin, disabled = @disabled, password_hash = @password_hash,
           updated_at = @updated_at WHERE account_id = @account_id`,
      ),
      delete: db.prepare<[string]>('DELETE FROM accounts WHERE account_id = ?'),
      deleteLinks: db.prepare<[string]>('DELETE FROM account_links WHERE account_id = ?'),
      insertLink: db.prepare(
        `INSERT INTO account_links (link_hash, account_id, purpose, created_at, expires_at)
         VALUES (@link_hash, @account_id, @purpose, @created_at, @expires_at)`,
      ),
      takeLink: db.prepare<[Buffer], accountRows.LinkRow>('DELETE FROM account_links WHERE link_hash = ? RETURNING *'),
      insertSession: db.prepare(
        `INSERT INTO account_sessions (session_hash, account_id, created_at, expires_at)
         VALUES (@session_hash, @account_id, @created_at, @expires_at)`,
      ),
      session: db.prepare<[Buffer], accountRows.SessionRow>('SELECT * FROM account_sessions WHERE session_hash = ?'),
      deleteSession: db.prepare<[Buffer]>('DELETE FROM account_sessions WHERE session_hash = ?'),
      deleteSessions: db.prepare<[string]>('DELETE FROM account_sessions WHERE account_id = ?'),
      byIdentity: db.prepare<[string, string], Row>(
        `SELECT accounts.* FROM account_identities JOIN accounts USING (account_id)
         WHERE account_identities.issuer = ? AND account_identities.subject = ?`,
      ),
      linkIdentity: db.prepare<[string, string, string, string]>(
        `INSERT INTO account_identities (issuer, subject, account_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
      ),
      expiredSessions: db.prepare<[string]>('DELETE FROM account_sessions WHERE expires_at <= ?'),
      expiredLinks: db.prepare<[string]>('DELETE FROM account_links WHERE expires_at <= ?'),
    };
  }

  insert(account: Account): boolean {
    return this.statements.insert.run(accountRows.accountToRow(account, sqliteColumns)).changes === 1;
  }

  byEmail(email: string): Account | null {
    const row = this.statements.byEmail.get(email);
    return row ? toAccount(row) : null;
  }

  byId(accountId: string): Account | null {
    const row = this.statements.byId.get(accountId);
    return row ? toAccount(row) : null;
  }

  list(): Account[] {
    return this.statements.list.all().map(toAccount);
  }

  count(): number {
    return this.statements.count.get()?.n ?? 0;
  }

  update(account: Account): void {
    this.statements.update.run(accountRows.accountToRow(account, sqliteColumns));
  }

  delete(accountId: string): boolean {
    return this.statements.delete.run(accountId).changes === 1;
  }

  replaceLink(link: AccountLink): void {
    this.db.transaction(() => {
      this.statements.deleteLinks.run(link.accountId);
      this.statements.insertLink.run(accountRows.linkToRow(link));
    })();
  }

  takeLink(linkHash: Buffer): AccountLink | null {
    const row = this.statements.takeLink.get(linkHash);
    return row ? accountRows.linkFromRow(row) : null;
  }

  insertSession(session: AccountSession): void {
    this.statements.insertSession.run(accountRows.sessionToRow(session));
  }

  session(sessionHash: Buffer): { session: AccountSession; account: Account } | null {
    const row = this.statements.session.get(sessionHash);
    const account = row ? this.byId(row.account_id) : null;
    if (!row || !account) return null;
    return { session: accountRows.sessionFromRow(row), account };
  }

  deleteSession(sessionHash: Buffer): void {
    this.statements.deleteSession.run(sessionHash);
  }

  deleteSessions(accountId: string): void {
    this.statements.deleteSessions.run(accountId);
  }

  byIdentity(issuer: string, subject: string): Account | null {
    const row = this.statements.byIdentity.get(issuer, subject);
    return row ? toAccount(row) : null;
  }

  linkIdentity(issuer: string, subject: string, accountId: string, now: string): boolean {
    return this.statements.linkIdentity.run(issuer, subject, accountId, now).changes === 1;
  }

  deleteExpired(now: string): void {
    this.statements.expiredSessions.run(now);
    this.statements.expiredLinks.run(now);
  }
}
