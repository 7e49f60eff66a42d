/** Where an account's identity comes from: a password kept here, or (later) a single sign-on provider. */
export const accountSources = ['local', 'oidc'] as const;
export type AccountSource = (typeof accountSources)[number];

/** An organiser's account as stored. The password exists only as a scrypt hash (null until set). */
export interface Account {
  readonly accountId: string;
  /** Normalised: NFC, lower case (account-fields.ts). */
  readonly email: string;
  readonly name: string;
  readonly admin: boolean;
  readonly disabled: boolean;
  readonly source: AccountSource;
  readonly passwordHash: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A one-time link (set a password) as stored: only the SHA-256 of its secret. */
export interface AccountLink {
  readonly linkHash: Buffer;
  readonly accountId: string;
  readonly purpose: 'set_password';
  readonly createdAt: string;
  readonly expiresAt: string;
}

/** A signed-in browser as stored: only the SHA-256 of the cookie's secret. */
export interface AccountSession {
  readonly sessionHash: Buffer;
  readonly accountId: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

/** The accounts' store port. Every read goes to the database: meetctl changes it from another process. */
export interface AccountStore {
  /** Returns false when an account with that email exists. */
  insert(account: Account): boolean;
  byEmail(email: string): Account | null;
  byId(accountId: string): Account | null;
  list(): Account[];
  count(): number;
  update(account: Account): void;
  /** Deletes the account with its links and sessions; its rooms keep no owner. */
  delete(accountId: string): boolean;
  /** The account's earlier links are dropped: only the newest one works. */
  replaceLink(link: AccountLink): void;
  /** Deletes and returns the link (single use). */
  takeLink(linkHash: Buffer): AccountLink | null;
  insertSession(session: AccountSession): void;
  /** The session with its account, when both exist. */
  session(sessionHash: Buffer): { session: AccountSession; account: Account } | null;
  deleteSession(sessionHash: Buffer): void;
  deleteSessions(accountId: string): void;
  /** The account a single sign-on identity (its provider's issuer and subject) is linked to. */
  byIdentity(issuer: string, subject: string): Account | null;
  /** Links an identity to an account; false when either is linked already (to another). */
  linkIdentity(issuer: string, subject: string, accountId: string, now: string): boolean;
  /** Drops sessions and links that expired before `now` (ISO time). */
  deleteExpired(now: string): void;
}
