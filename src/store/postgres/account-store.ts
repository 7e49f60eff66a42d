import type { Account, AccountLink, AccountSession } from '../../engine/accounts/account.js';
import type { AsyncAccountStore } from '../../engine/async-ports.js';
import * as accountRows from '../rows/account-row.js';
import { postgresColumns, type PostgresTypes } from '../rows/columns.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

type Row = accountRows.AccountRow<PostgresTypes>;
const toAccount = (row: Row): Account => accountRows.accountFromRow(row, postgresColumns);

/**
 * Organiser accounts, their one-time links, sessions and single sign-on identities on PostgreSQL.
 * As on SQLite nothing is kept in memory; emails are ordered COLLATE "C" (SQLite's byte order).
 */
export class PostgresAccountStore implements AsyncAccountStore {
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async insert(account: Account): Promise<boolean> {
    const result = await this.db`INSERT INTO accounts ${this.db(accountRows.accountToRow(account, postgresColumns))}
      ON CONFLICT DO NOTHING`;
    return result.count === 1;
  }

  async byEmail(email: string): Promise<Account | null> {
    const [row] = await this.db<Row[]>`SELECT * FROM accounts WHERE email = ${email}`;
    return row ? toAccount(row) : null;
  }

  async byId(accountId: string): Promise<Account | null> {
    const [row] = await this.db<Row[]>`SELECT * FROM accounts WHERE account_id = ${accountId}`;
    return row ? toAccount(row) : null;
  }

  async list(): Promise<Account[]> {
    return (await this.db<Row[]>`SELECT * FROM accounts ORDER BY email COLLATE "C"`).map(toAccount);
  }

  async count(): Promise<number> {
    const [row] = await this.db<{ n: number }[]>`SELECT count(*)::int AS n FROM accounts`;
    return row?.n ?? 0;
  }

  async update(account: Account): Promise<void> {
    const a = accountRows.accountToRow(account, postgresColumns);
    await this.db`UPDATE accounts SET name = ${a.name}, admin = ${a.admin}, disabled = ${a.disabled},
        password_hash = ${a.password_hash}, updated_at = ${a.updated_at}
      WHERE account_id = ${a.account_id}`;
  }

  async delete(accountId: string): Promise<boolean> {
    return (await this.db`DELETE FROM accounts WHERE account_id = ${accountId}`).count === 1;
  }

  /** The earlier links go and the new one comes in one unit (a savepoint inside the caller's). */
  async replaceLink(link: AccountLink): Promise<void> {
    await this.unit.run(async () => {
      await this.db`DELETE FROM account_links WHERE account_id = ${link.accountId}`;
      await this.db`INSERT INTO account_links ${this.db(accountRows.linkToRow(link))}`;
    });
  }

  async takeLink(linkHash: Buffer): Promise<AccountLink | null> {
    const [row] = await this.db<
      accountRows.LinkRow[]
    >`DELETE FROM account_links WHERE link_hash = ${linkHash} RETURNING *`;
    return row ? accountRows.linkFromRow(row) : null;
  }

  async insertSession(session: AccountSession): Promise<void> {
    await this.db`INSERT INTO account_sessions ${this.db(accountRows.sessionToRow(session))}`;
  }

  async session(sessionHash: Buffer): Promise<{ session: AccountSession; account: Account } | null> {
    const [row] = await this.db<
      accountRows.SessionRow[]
    >`SELECT * FROM account_sessions WHERE session_hash = ${sessionHash}`;
    const account = row ? await this.byId(row.account_id) : null;
    if (!row || !account) return null;
    return { session: accountRows.sessionFromRow(row), account };
  }

  async deleteSession(sessionHash: Buffer): Promise<void> {
    await this.db`DELETE FROM account_sessions WHERE session_hash = ${sessionHash}`;
  }

  async deleteSessions(accountId: string): Promise<void> {
    await this.db`DELETE FROM account_sessions WHERE account_id = ${accountId}`;
  }

  async byIdentity(issuer: string, subject: string): Promise<Account | null> {
    const [row] = await this.db<Row[]>`
      SELECT accounts.* FROM account_identities JOIN accounts USING (account_id)
      WHERE account_identities.issuer = ${issuer} AND account_identities.subject = ${subject}`;
    return row ? toAccount(row) : null;
  }

  async linkIdentity(issuer: string, subject: string, accountId: string, now: string): Promise<boolean> {
    const result = await this.db`INSERT INTO account_identities (issuer, subject, account_id, created_at)
      VALUES (${issuer}, ${subject}, ${accountId}, ${now}) ON CONFLICT DO NOTHING`;
    return result.count === 1;
  }

  async deleteExpired(now: string): Promise<void> {
    await this.db`DELETE FROM account_sessions WHERE expires_at COLLATE "C" <= ${now}`;
    await this.db`DELETE FROM account_links WHERE expires_at COLLATE "C" <= ${now}`;
  }
}
