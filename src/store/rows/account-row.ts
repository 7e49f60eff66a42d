import type { Account, AccountLink, AccountSession } from '../../engine/accounts/account.js';
import type { Columns, StoreTypes } from './columns.js';

/** A row of `accounts`, on either store. */
export interface AccountRow<S extends StoreTypes> {
  account_id: string;
  email: string;
  name: string;
  admin: S['flag'];
  disabled: S['flag'];
  source: Account['source'];
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** A row of `account_links`, the same on both stores (the hash a Buffer). */
export interface LinkRow {
  link_hash: Buffer;
  account_id: string;
  purpose: 'set_password';
  created_at: string;
  expires_at: string;
}

/** A row of `account_sessions`, the same on both stores (the hash a Buffer). */
export interface SessionRow {
  session_hash: Buffer;
  account_id: string;
  created_at: string;
  expires_at: string;
}

export const accountFromRow = <S extends StoreTypes>(row: AccountRow<S>, c: Columns<S>): Account => ({
  accountId: row.account_id,
  email: row.email,
  name: row.name,
  admin: c.flag(row.admin),
  disabled: c.flag(row.disabled),
  source: row.source,
  passwordHash: row.password_hash,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const accountToRow = <S extends StoreTypes>(account: Account, c: Columns<S>): AccountRow<S> => ({
  account_id: account.accountId,
  email: account.email,
  name: account.name,
  admin: c.toFlag(account.admin),
  disabled: c.toFlag(account.disabled),
  source: account.source,
  password_hash: account.passwordHash,
  created_at: account.createdAt,
  updated_at: account.updatedAt,
});

export const linkFromRow = (row: LinkRow): AccountLink => ({
  linkHash: row.link_hash,
  accountId: row.account_id,
  purpose: row.purpose,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export const linkToRow = (link: AccountLink): LinkRow => ({
  link_hash: link.linkHash,
  account_id: link.accountId,
  purpose: link.purpose,
  created_at: link.createdAt,
  expires_at: link.expiresAt,
});

export const sessionFromRow = (row: SessionRow): AccountSession => ({
  sessionHash: row.session_hash,
  accountId: row.account_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export const sessionToRow = (session: AccountSession): SessionRow => ({
  session_hash: session.sessionHash,
  account_id: session.accountId,
  created_at: session.createdAt,
  expires_at: session.expiresAt,
});
