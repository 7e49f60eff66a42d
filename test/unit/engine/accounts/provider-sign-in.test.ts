// Single sign-on's rules in the engine (issue 32 point 2), with a fake clock: which verified
// identities may sign in and as which account. The provider itself is driven in
// test/service/http/single-sign-on.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { AccountService } from '../../../../src/engine/accounts/account-service.js';
import type { ProviderIdentity, ProviderPolicy } from '../../../../src/engine/accounts/provider-sign-in.js';
import { openDatabase } from '../../../../src/store/database.js';
import { sqliteAsyncStores } from '../../../../src/store/async-sqlite.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import type { Tap } from '../../../helpers/api.js';

function fixture(t: Tap) {
  const dir = mkdtempSync(join(tmpdir(), 'meet-sso-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return new AccountService(sqliteAsyncStores(db).accounts, new FakeClock(), { cost: { N: 1 << 10, r: 8, p: 1 } });
}

const issuer = 'https://login.school.example';
const anyone: ProviderPolicy = { allowedDomains: [], createAccounts: true };
const who = (subject: string, fields: Partial<ProviderIdentity> = {}): ProviderIdentity => ({
  issuer,
  subject,
  email: `${subject}@school.example`,
  emailVerified: true,
  name: undefined,
  ...fields,
});
const code = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
    return 'signed in';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
};

t.test('the email: verified when the provider says, within the domains, exactly', async (t) => {
  const accounts = fixture(t);
  const school: ProviderPolicy = { allowedDomains: ['school.example'], createAccounts: true };
  t.equal(
    await code(() => accounts.signInWithProvider(who('a', { emailVerified: false }), anyone)),
    'sso_email_unverified',
  );
  t.equal(
    await code(() => accounts.signInWithProvider(who('a', { emailVerified: 'true' }), anyone)),
    'sso_email_unverified',
  );
  t.equal(
    await code(() => accounts.signInWithProvider(who('a', { email: undefined }), anyone)),
    'sso_email_unverified',
  );
  t.equal(
    await code(() => accounts.signInWithProvider(who('a', { email: 'a b@school.example' }), anyone)),
    'sso_email_unverified',
  );
  t.equal(
    await code(() => accounts.signInWithProvider(who('a', { email: 'a@staff.school.example' }), school)),
    'sso_domain_not_allowed',
    'a subdomain is another domain',
  );
  t.equal(
    await code(() => accounts.signInWithProvider(who('a', { email: 'a@school.example.evil' }), school)),
    'sso_domain_not_allowed',
  );
  t.equal((await accounts.list()).length, 0, 'no account for any of them');
  t.equal(
    await code(() =>
      accounts.signInWithProvider(who('a', { emailVerified: undefined, email: 'A@School.Example' }), school),
    ),
    'signed in',
  );
  t.match(await accounts.list(), [{ email: 'a@school.example', source: 'oidc', name: 'a' }]);
});

t.test('the identity, not the email, finds the account once linked', async (t) => {
  const accounts = fixture(t);
  const first = await accounts.signInWithProvider(who('sub-1', { name: 'Ana Lehrerin' }), anyone);
  t.equal(first.account.name, 'Ana Lehrerin');
  const renamed = await accounts.signInWithProvider(who('sub-1', { email: 'ana.neu@school.example' }), anyone);
  t.equal(renamed.account.accountId, first.account.accountId, 'her email changed at the provider: the same account');
  t.equal((await accounts.list()).length, 1);
  t.equal(
    await code(() => accounts.signInWithProvider(who('sub-2', { email: 'sub-1@school.example' }), anyone)),
    'sso_account_unknown',
    'another identity with her email is not let in as her',
  );
  const moved = await accounts.signInWithProvider(
    { ...who('sub-1'), issuer: 'https://new-login.school.example' },
    anyone,
  );
  t.equal(moved.account.accountId, first.account.accountId, 'a new provider (issuer) finds her account by email once');
});

t.test('accounts made beforehand, disabled ones, and names people could not be shown', async (t) => {
  const accounts = fixture(t);
  const closed: ProviderPolicy = { allowedDomains: [], createAccounts: false };
  t.equal(await code(() => accounts.signInWithProvider(who('x'), closed)), 'sso_account_unknown');
  await accounts.add({ email: 'kim@school.example', name: 'Kim' });
  const kim = await accounts.signInWithProvider(who('sub-kim', { email: 'kim@school.example' }), closed);
  t.equal(kim.account.name, 'Kim', 'the account made with meetctl, linked by its email');
  t.ok(await accounts.session(kim.token), 'a session like a password sign-in');
  await accounts.disable('kim@school.example');
  t.equal(
    await code(() => accounts.signInWithProvider(who('sub-kim', { email: 'kim@school.example' }), closed)),
    'account_disabled',
  );
  const odd = await accounts.signInWithProvider(who('odd', { name: '\u202eevil' }), anyone);
  t.equal(odd.account.name, 'odd', 'a name with a bidi control: the email local part instead');
});
