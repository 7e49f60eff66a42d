// Issue 34 point 2: organiser accounts served from the asynchronous store port, once per store
// (SQLite behind the port, and PostgreSQL): the first admin once, a one-time link sets the password
// once, a session lives until sign-out, disable or reset; single sign-on links an identity to the
// account made beforehand.
import { AccountService } from '../../../src/engine/accounts/account-service.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const cheap = { N: 1 << 10, r: 8, p: 1 };
const good = 'Korrekt-Pferd-Batterie';

onEachStore('first admin, one-time link, sign-in, sessions ended by sign-out, disable and reset', async (t, stores) => {
  const clock = new FakeClock();
  const accounts = new AccountService(stores.accounts, clock, { cost: cheap });
  const admin = await accounts.addFirstAdmin('admin@localhost');
  t.match(admin, { account: { email: 'admin@localhost', admin: true }, token: String });
  t.equal(await accounts.addFirstAdmin('admin@localhost'), null, 'once');
  const ana = await accounts.add({ email: 'Ana@School.example' });
  await t.rejects(accounts.add({ email: 'ana@school.example' }), { code: 'account_exists', field: 'email' });
  await accounts.usePasswordLink(ana.token!, good);
  await t.rejects(accounts.usePasswordLink(ana.token!, good), { code: 'link_invalid' }, 'the link is spent');
  const first = await accounts.signIn('ana@school.example', good, '10.0.0.1');
  t.match(await accounts.session(first.token), { account: { email: 'ana@school.example' } });
  await accounts.signOut(first.token);
  t.equal(await accounts.session(first.token), null, 'signed out');
  const second = await accounts.signIn('ana@school.example', good, '10.0.0.1');
  await accounts.disable('ana@school.example');
  t.equal(await accounts.session(second.token), null, 'disabled');
  await accounts.disable('ana@school.example', false);
  const third = await accounts.signIn('ana@school.example', good, '10.0.0.1');
  clock.advance(14 * 24 * 3600_000);
  t.equal(await accounts.session(third.token), null, 'a session lasts 14 days');
  await accounts.sweep();
  const reset = await accounts.reset('ana@school.example');
  await t.rejects(accounts.signIn('ana@school.example', good, '10.0.0.1'), { code: 'sign_in_failed' }, 'reset');
  await accounts.usePasswordLink(reset.token, 'Heftklammer-Tafel-7');
  t.same(
    (await accounts.list()).map((a) => a.email),
    ['admin@localhost', 'ana@school.example'],
  );
  await accounts.remove('ana@school.example');
  await t.rejects(accounts.show('ana@school.example'), { code: 'account_not_found' });
});

onEachStore('single sign-on links the identity to the account made beforehand, once', async (t, stores) => {
  const accounts = new AccountService(stores.accounts, new FakeClock(), { cost: cheap });
  const closed = { allowedDomains: [], createAccounts: false };
  const kim = { issuer: 'https://login.school.example', subject: 'sub-kim', email: 'kim@school.example' };
  const identity = { ...kim, emailVerified: true, name: undefined };
  await t.rejects(accounts.signInWithProvider(identity, closed), { code: 'sso_account_unknown' });
  const made = await accounts.add({ email: 'kim@school.example', name: 'Kim', source: 'oidc' });
  const signedIn = await accounts.signInWithProvider(identity, closed);
  t.equal(signedIn.account.accountId, made.account.accountId);
  const renamed = await accounts.signInWithProvider({ ...identity, email: 'kim.neu@school.example' }, closed);
  t.equal(renamed.account.accountId, made.account.accountId, 'found by the identity once linked');
  t.ok(await accounts.session(renamed.token));
});
