import { EngineError } from '../errors.js';
import type { AsyncAccountStore } from '../async-ports.js';
import type { Account } from './account.js';
import { normaliseEmail } from './account-fields.js';

/** Who a single sign-on provider says signed in: taken from its verified ID token (and userinfo for the same subject). */
export interface ProviderIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly email: unknown;
  /** The provider's email_verified claim; undefined when it sends none. */
  readonly emailVerified: unknown;
  readonly name: unknown;
}

/** The instance's rules for single sign-on (SERVICE_OIDC_ALLOWED_DOMAINS, SERVICE_OIDC_CREATE_ACCOUNTS). */
export interface ProviderPolicy {
  /** Lower case; empty: any domain. */
  readonly allowedDomains: readonly string[];
  /** False: only accounts made beforehand (by email) may sign in. */
  readonly createAccounts: boolean;
}

/** The account's email as the provider vouches for it, within the instance's domains. */
export function checkProviderEmail(identity: ProviderIdentity, policy: ProviderPolicy): string {
  const email = normaliseEmail(identity.email);
  // A claim the provider sends must say true; one it does not send leaves the email as it vouched for it.
  if (email === null || (identity.emailVerified !== undefined && identity.emailVerified !== true))
    throw new EngineError(
      'sso_email_unverified',
      'the single sign-on provider gave no verified email address for this person',
    );
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (policy.allowedDomains.length > 0 && !policy.allowedDomains.includes(domain))
    throw new EngineError('sso_domain_not_allowed', `accounts at ${domain} may not sign in to this service`);
  return email;
}

/**
 * The account an identity signs in as: the one linked to it, else the one with its email (made
 * beforehand, and linked now), else a new one when the instance creates accounts. Null: a new one
 * is to be made (the caller adds it, then links it). An account linked to another identity of the
 * same provider is not taken over by email.
 */
export async function accountOfIdentity(
  store: AsyncAccountStore,
  identity: ProviderIdentity,
  email: string,
  policy: ProviderPolicy,
  now: string,
): Promise<Account | null> {
  const linked = await store.byIdentity(identity.issuer, identity.subject);
  if (linked) return usable(linked);
  const byEmail = await store.byEmail(email);
  if (!byEmail) {
    if (!policy.createAccounts)
      throw new EngineError(
        'sso_account_unknown',
        `no account was made for ${email}; ask an administrator of this service to add you`,
      );
    return null;
  }
  usable(byEmail);
  if (!(await store.linkIdentity(identity.issuer, identity.subject, byEmail.accountId, now)))
    throw new EngineError(
      'sso_account_unknown',
      `the account of ${email} signs in with another single sign-on identity; ask an administrator of this service`,
    );
  return byEmail;
}

function usable(account: Account): Account {
  if (account.disabled)
    throw new EngineError('account_disabled', 'this account is disabled; ask an administrator of this service');
  return account;
}
