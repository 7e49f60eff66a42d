import type { Account, AccountLink, AccountSession } from '../../engine/accounts/account.js';
import type { AsyncAccountStore } from '../../engine/async-ports.js';
import type { PostgresUnitOfWork } from './unit-of-work.js';

interface AccountRow {
  account_id: string;
  email: string;
  name: string;
  admin: boolean;
  disabled: boolean;
  source: Account['source'];
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

interface LinkRow {
  link_hash: Buffer;
  account_id: string;
  purpose: 'set_password';
  created_at: string;
  expires_at: string;
}

interface SessionRow {
  session_hash: Buffer;
  account_id: string;
  created_at: string;
  expires_at: string;
}

const toAccount = (row: AccountRow): Account => ({
  accountId: row.account_id,
  email: row.email,
  name: row.name,
  admin: row.admin,
  disabled: row.disabled,
  source: row.source,
  passwordHash: row.password_hash,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * Organiser accounts, their one-time links, sessions and single sign-on identities on PostgreSQL.
 * As on SQLite nothing is kept in memory; emails are ordered COLLATE "C" (SQLite's byte order).
 */
export class PostgresAccountStore implements AsyncAccountStore {
  constructor(private readonly unit: PostgresUnitOfWork) {}

  private get db() {
    return this.unit.connection();
  }

  async insert(a: Account): Promise<boolean> {
    const result = await this.db`INSERT INTO accounts
        (account_id, email, name, admin, disabled, source, password_hash, created_at, updated_at)
      VALUES (${a.accountId}, ${a.email}, ${a.name}, ${a.admin}, ${a.disabled}, ${a.source}, ${a.passwordHash},
        ${a.createdAt}, ${a.updatedAt})
      ON CONFLICT DO NOTHING`;
    return result.count === 1;
  }

  async byEmail(email: string): Promise<Account | null> {
    const [row] = await this.db<AccountRow[]>`SELECT * FROM accounts WHERE email = ${email}`;
    return row ? toAccount(row) : null;
  }

  async byId(accountId: string): Promise<Account | null> {
    const [row] = await this.db<AccountRow[]>`SELECT * FROM accounts WHERE account_id = ${accountId}`;
    return row ? toAccount(row) : null;
  }

  async list(): Promise<Account[]> {
    return (await this.db<AccountRow[]>`SELECT * FROM accounts ORDER BY email COLLATE "C"`).map(toAccount);
  }

  async count(): Promise<number> {
    const [row] = await this.db<{ n: number }[]>`SELECT count(*)::int AS n FROM accounts`;
    return row?.n ?? 0;
  }

  async update(a: Account): Promise<void> {
    await this.db`UPDATE accounts SET name = ${a.name}, admin = ${a.admin}, disabled = ${a.disabled},
        password_hash = ${a.passwordHash}, updated_at = ${a.updatedAt}
      WHERE account_id = ${a.accountId}`;
  }

  async delete(accountId: string): Promise<boolean> {
    return (await this.db`DELETE FROM accounts WHERE account_id = ${accountId}`).count === 1;
  }

  /** The earlier links go and the new one comes in one unit (a savepoint inside the caller's). */
  async replaceLink(link: AccountLink): Promise<void> {
    await this.unit.run(async () => {
      await this.db`DELETE FROM account_links WHERE account_id = ${link.accountId}`;
      await this.db`INSERT INTO account_links (link_hash, account_id, purpose, created_at, expires_at)
        VALUES (${link.linkHash}, ${link.accountId}, ${link.purpose}, ${link.createdAt}, ${link.expiresAt})`;
    });
  }

  async takeLink(linkHash: Buffer): Promise<AccountLink | null> {
    const [row] = await this.db<LinkRow[]>`DELETE FROM account_links WHERE link_hash = ${linkHash} RETURNING *`;
    return row
      ? {
          linkHash: row.link_hash,
          accountId: row.account_id,
          purpose: row.purpose,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
        }
      : null;
  }

  async insertSession(s: AccountSession): Promise<void> {
    await this.db`INSERT INTO account_sessions (session_hash, account_id, created_at, expires_at)
      VALUES (${s.sessionHash}, ${s.accountId}, ${s.createdAt}, ${s.expiresAt})`;
  }

  async session(sessionHash: Buffer): Promise<{ session: AccountSession; account: Account } | null> {
    const [row] = await this.db<SessionRow[]>`SELECT * FROM account_sessions WHERE session_hash = ${sessionHash}`;
    const account = row ? await this.byId(row.account_id) : null;
    if (!row || !account) return null;
    return {
      session: {
        sessionHash: row.session_hash,
        accountId: row.account_id,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      },
      account,
    };
  }

  async deleteSession(sessionHash: Buffer): Promise<void> {
    await this.db`DELETE FROM account_sessions WHERE session_hash = ${sessionHash}`;
  }

  async deleteSessions(accountId: string): Promise<void> {
    await this.db`DELETE FROM account_sessions WHERE account_id = ${accountId}`;
  }

  async byIdentity(issuer: string, subject: string): Promise<Account | null> {
    const [row] = await this.db<AccountRow[]>`
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
