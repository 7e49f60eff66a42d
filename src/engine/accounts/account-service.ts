import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { EngineError } from '../errors.js';
import { AttemptLimiter, type AttemptLimits } from '../waiting/attempt-limiter.js';
import type { AsyncAccountStore } from '../async-ports.js';
import type { Account, AccountSource } from './account.js';
import { checkAccountName, checkEmail, normaliseEmail } from './account-fields.js';
import {
  accountOfIdentity,
  checkProviderEmail,
  type ProviderIdentity,
  type ProviderPolicy,
} from './provider-sign-in.js';
import { checkPassword, hashPassword, passwordCost, verifyPassword, type ScryptCost } from './password.js';

/** A one-time link to set a password is good for 72 hours, once. */
export const linkTtlMs = 72 * 3600_000;
/** A signed-in browser stays signed in for 14 days (then signs in again). */
export const accountSessionTtlMs = 14 * 24 * 3600_000;

export interface SignInLimits {
  /** Failed sign-ins per account (by the email typed, known or not). */
  readonly account: AttemptLimits;
  /** Failed sign-ins per client (its address, IPv6 by /64). */
  readonly client: AttemptLimits;
}

export const defaultSignInLimits: SignInLimits = {
  account: { limit: 10, windowMs: 15 * 60_000 },
  client: { limit: 30, windowMs: 15 * 60_000 },
};

export interface NewAccount {
  readonly email: unknown;
  readonly name?: unknown;
  readonly admin?: boolean;
  readonly source?: AccountSource;
}

/** What a one-time link carries: its secret, shown once (the caller puts it into an address). */
export interface IssuedLink {
  readonly account: Account;
  readonly token: string;
  readonly expiresAt: string;
}

export interface SignedIn {
  readonly account: Account;
  /** The cookie's value, shown once: only its SHA-256 is kept. */
  readonly token: string;
  readonly expiresAt: string;
}

export interface CurrentSession {
  readonly account: Account;
  /** What a state-changing request with this session's cookie sends as X-CSRF-Token. */
  readonly csrfToken: string;
}

const digest = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();
const secret = (): string => randomBytes(32).toString('base64url');
/** Tokens are base64url of 32 bytes; anything else is not looked up at all. */
const tokenShape = /^[A-Za-z0-9_-]{43}$/;

/** The same answer for an unknown email, a wrong password, a disabled account and one without a password. */
const signInFailed = () => new EngineError('sign_in_failed', 'the email or the password is not right');
const linkInvalid = () =>
  new EngineError('link_invalid', 'this link is not valid (used already, expired or replaced); ask for a new one');
const notFound = (email: string) => new EngineError('account_not_found', `no account has the email ${email}`, 'email');

/**
 * Organiser accounts: who may sign in, their one-time links and their sessions. Local accounts
 * now; single sign-on adds accounts of source `oidc` and calls `startSession` after its own checks.
 */
export class AccountService {
  private readonly accountAttempts: AttemptLimiter;
  private readonly clientAttempts: AttemptLimiter;
  private dummy: Promise<string> | null = null;

  private readonly cost: ScryptCost;

  constructor(
    private readonly store: AsyncAccountStore,
    private readonly clock: Clock,
    options: { readonly limits?: SignInLimits; readonly cost?: ScryptCost } = {},
  ) {
    const limits = options.limits ?? defaultSignInLimits;
    this.cost = options.cost ?? passwordCost;
    this.accountAttempts = new AttemptLimiter(clock, limits.account, 'too_many_sign_ins');
    this.clientAttempts = new AttemptLimiter(clock, limits.client, 'too_many_sign_ins');
  }

  /** A new account; a local one gets a one-time link to set its password (null for single sign-on). */
  async add(fields: NewAccount): Promise<IssuedLink | { account: Account; token: null; expiresAt: null }> {
    const email = checkEmail(fields.email);
    const now = this.clock.now().toISOString();
    const account: Account = {
      accountId: randomUUID(),
      email,
      name: checkAccountName(fields.name, email),
      admin: fields.admin === true,
      disabled: false,
      source: fields.source ?? 'local',
      passwordHash: null,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.store.insert(account)))
      throw new EngineError('account_exists', `an account with the email ${email} exists already`, 'email');
    return account.source === 'local' ? this.issueLink(account) : { account, token: null, expiresAt: null };
  }

  /**
   * On an instance's first start (no account at all), an admin account and its one-time link;
   * null ever after, and when another process made the first account meanwhile.
   */
  async addFirstAdmin(email: string): Promise<IssuedLink | null> {
    if ((await this.store.count()) > 0) return null;
    try {
      return (await this.add({ email, name: 'Admin', admin: true })) as IssuedLink;
    } catch (err) {
      if (err instanceof EngineError && err.code === 'account_exists') return null;
      throw err;
    }
  }

  list(): Promise<Account[]> {
    return this.store.list();
  }

  async show(rawEmail: unknown): Promise<Account> {
    const email = checkEmail(rawEmail);
    const account = await this.store.byEmail(email);
    if (!account) throw notFound(email);
    return account;
  }

  byId(accountId: string): Promise<Account | null> {
    return this.store.byId(accountId);
  }

  /** Disabled: it cannot sign in, and its sessions end now (every request reads the store). */
  async disable(rawEmail: unknown, disabled = true): Promise<Account> {
    const account = { ...(await this.show(rawEmail)), disabled, updatedAt: this.clock.now().toISOString() };
    await this.store.update(account);
    if (disabled) await this.store.deleteSessions(account.accountId);
    return account;
  }

  /** Deletes the account, its links and sessions; its rooms keep no owner (admins still see them). */
  async remove(rawEmail: unknown): Promise<void> {
    await this.store.delete((await this.show(rawEmail)).accountId);
  }

  /** A new one-time link; the password is cleared and every session ends, so a leaked password stops working now. */
  async reset(rawEmail: unknown): Promise<IssuedLink> {
    const current = await this.show(rawEmail);
    if (current.source !== 'local')
      throw new EngineError(
        'invalid_field',
        `${current.email} signs in through single sign-on: it has no password`,
        'email',
      );
    const account = { ...current, passwordHash: null, updatedAt: this.clock.now().toISOString() };
    await this.store.update(account);
    await this.store.deleteSessions(account.accountId);
    return this.issueLink(account);
  }

  /** Sets a local account's password directly (meetctl user add --password-file); its sessions end. */
  async setPassword(rawEmail: unknown, password: string): Promise<Account> {
    checkPassword(password);
    const passwordHash = await hashPassword(password, this.cost);
    return this.storePassword(await this.show(rawEmail), passwordHash);
  }

  /** The password set through a one-time link, which is spent by it. A weak password leaves the link unspent. */
  async usePasswordLink(token: string, password: string): Promise<Account> {
    checkPassword(password);
    if (!tokenShape.test(token)) throw linkInvalid();
    const passwordHash = await hashPassword(password, this.cost);
    const link = await this.store.takeLink(digest(token));
    const account =
      link && link.expiresAt > this.clock.now().toISOString() ? await this.store.byId(link.accountId) : null;
    if (!account || account.disabled) throw linkInvalid();
    return this.storePassword(account, passwordHash);
  }

  /**
   * Checks an email and password; the same refusal, after the same work (a scrypt verification of a
   * stand-in hash when there is no password to check), whatever was wrong. Failures are counted per
   * account (the email typed) and per client: over either limit, TooManyAttemptsError (429).
   */
  async signIn(rawEmail: unknown, password: unknown, client: string): Promise<SignedIn> {
    const standIn = await this.standInHash();
    const email = normaliseEmail(rawEmail);
    const settleClient = await this.clientAttempts.begin(client);
    let settleAccount: (succeeded: boolean) => void;
    try {
      settleAccount = await this.accountAttempts.begin(email ?? '');
    } catch (err) {
      settleClient(false);
      throw err;
    }
    let account: Account | null = null;
    try {
      const found = email === null ? null : await this.store.byEmail(email);
      const usable = found !== null && !found.disabled && found.source === 'local' && found.passwordHash !== null;
      const matches = await verifyPassword(
        typeof password === 'string' ? password : '',
        usable ? found.passwordHash : standIn,
      );
      account = usable && matches ? found : null;
    } finally {
      settleClient(account !== null);
      settleAccount(account !== null);
    }
    if (!account) throw signInFailed();
    return this.startSession(account);
  }

  /**
   * Single sign-on: the provider verified who this is (its ID token); the instance's rules decide
   * whether she may sign in and as which account (provider-sign-in.ts). A first sign-in makes her
   * account when the instance creates accounts; then the same session as a password sign-in.
   */
  async signInWithProvider(identity: ProviderIdentity, policy: ProviderPolicy): Promise<SignedIn> {
    const email = checkProviderEmail(identity, policy);
    const now = this.clock.now().toISOString();
    let account = await accountOfIdentity(this.store, identity, email, policy, now);
    if (!account) {
      let name: unknown = identity.name;
      try {
        checkAccountName(name, email);
      } catch {
        name = undefined; // a name the provider keeps that people could not be shown: the email's local part
      }
      try {
        account = (await this.add({ email, name, source: 'oidc' })).account;
      } catch (err) {
        // Another sign-in of hers made it meanwhile: take that one.
        if (!(err instanceof EngineError && err.code === 'account_exists')) throw err;
      }
      account = (await accountOfIdentity(this.store, identity, email, policy, now))!;
    }
    return this.startSession(account);
  }

  /** A session for an account whose identity was checked (a password here, a provider's ID token later). */
  async startSession(account: Account): Promise<SignedIn> {
    const token = secret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + accountSessionTtlMs).toISOString();
    await this.store.insertSession({
      sessionHash: digest(token),
      accountId: account.accountId,
      createdAt: now.toISOString(),
      expiresAt,
    });
    return { account, token, expiresAt };
  }

  /** The signed-in account of a session cookie, or null (unknown, expired, ended, disabled account). */
  async session(token: string): Promise<CurrentSession | null> {
    if (!tokenShape.test(token)) return null;
    const hash = digest(token);
    const found = await this.store.session(hash);
    if (!found || !timingSafeEqual(found.session.sessionHash, hash)) return null;
    if (found.account.disabled || found.session.expiresAt <= this.clock.now().toISOString()) return null;
    return { account: found.account, csrfToken: csrfTokenOf(token) };
  }

  /** Ends the session on the server: its cookie is worth nothing from now on. */
  async signOut(token: string): Promise<void> {
    if (tokenShape.test(token)) await this.store.deleteSession(digest(token));
  }

  /** Forgets counters no longer in their window, and sessions and links past their end. */
  async sweep(): Promise<void> {
    this.accountAttempts.prune();
    this.clientAttempts.prune();
    await this.store.deleteExpired(this.clock.now().toISOString());
  }

  private async storePassword(account: Account, passwordHash: string): Promise<Account> {
    if (account.source !== 'local')
      throw new EngineError(
        'invalid_field',
        `${account.email} signs in through single sign-on: it has no password`,
        'email',
      );
    const updated = { ...account, passwordHash, updatedAt: this.clock.now().toISOString() };
    await this.store.update(updated);
    await this.store.deleteSessions(account.accountId);
    return updated;
  }

  private async issueLink(account: Account): Promise<IssuedLink> {
    const token = secret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + linkTtlMs).toISOString();
    await this.store.replaceLink({
      linkHash: digest(token),
      accountId: account.accountId,
      purpose: 'set_password',
      createdAt: now.toISOString(),
      expiresAt,
    });
    return { account, token, expiresAt };
  }

  /** A hash of a password nobody knows, made once, so an unknown email costs a verification as a known one does. */
  private standInHash(): Promise<string> {
    this.dummy ??= hashPassword(secret(), this.cost);
    return this.dummy;
  }
}

/** The CSRF token of a session: derived from its secret, so nothing more is stored, and useless without the cookie. */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('csrf').digest('base64url');
}
