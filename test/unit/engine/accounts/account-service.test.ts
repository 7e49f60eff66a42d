// The account rules with a fake clock and a cheap scrypt cost (the real cost is the service's):
// one-time links (72 h, once, the newest only), sessions (14 days, ended by sign-out, disable,
// reset and a new password), the sign-in limits per account and per client, and the password rule.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { AccountService, csrfTokenOf } from '../../../../src/engine/accounts/account-service.js';
import { normaliseEmail } from '../../../../src/engine/accounts/account-fields.js';
import { checkPassword, hashPassword, verifyPassword } from '../../../../src/engine/accounts/password.js';
import { TooManyAttemptsError } from '../../../../src/engine/waiting/attempt-limiter.js';
import { openDatabase } from '../../../../src/store/database.js';
import { sqliteAsyncStores } from '../../../../src/store/async-sqlite.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import type { Tap } from '../../../helpers/api.js';

const cheap = { N: 1 << 10, r: 8, p: 1 };
const good = 'Korrekt-Pferd-Batterie';

function fixture(t: Tap) {
  const dir = mkdtempSync(join(tmpdir(), 'meet-accounts-'));
  const db = openDatabase(dir);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = new FakeClock();
  const accounts = new AccountService(sqliteAsyncStores(db).accounts, clock, { cost: cheap });
  return { accounts, clock, db };
}

t.test('the password rule', async (t) => {
  for (const weak of [
    'short-1',
    'password1234',
    'PASSWORD1234',
    'aaaaaaaaaaaaaaa',
    'abababababab',
    '123456789012',
    'qwertyuiopasdf',
    '0987654321098',
    'zyxwvutsrqpon',
  ])
    t.throws(() => checkPassword(weak), { code: 'invalid_field', field: 'password' }, weak);
  t.throws(() => checkPassword('x'.repeat(300)), { code: 'invalid_field', field: 'password' }, 'too long');
  for (const fine of [good, 'Heftklammer-Tafel-7', 'grüne Äpfel im Juni', '🐢🦊🐇 lesen im Wald'])
    t.doesNotThrow(() => checkPassword(fine), fine);
  const hash = await hashPassword(good, cheap);
  t.match(hash, /^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/, 'the cost is kept in the hash');
  t.ok(await verifyPassword(good, hash));
  t.notOk(await verifyPassword(`${good}!`, hash));
  t.ok(await verifyPassword('Korrekt-Pferd-Batterie'.normalize('NFD'), hash), 'NFC before hashing');
  t.notOk(await verifyPassword(good, 'plain'), 'a malformed hash matches nothing');
  t.not(await hashPassword(good, cheap), hash, 'salted');
});

t.test('emails are normalised and odd ones refused', async (t) => {
  t.equal(normaliseEmail('  Ana@School.Example '), 'ana@school.example');
  t.equal(normaliseEmail('zoe\u0301@e\u0301cole.example'), 'zoé@école.example');
  t.equal(normaliseEmail('admin@localhost'), 'admin@localhost');
  for (const odd of [
    'ana',
    '@x',
    'a@',
    'a@@b',
    'a b@c',
    'a@b..c',
    'a\u200b@b',
    '\u202ea@b',
    'a@b\u0000',
    'a\u00ad@b',
    `${'a'.repeat(65)}@b`,
    `a@${'b'.repeat(260)}`,
    42,
    null,
  ])
    t.equal(normaliseEmail(odd), null, JSON.stringify(odd));
});

t.test('one-time links: 72 hours, once, only the newest; sessions end when they should', async (t) => {
  const { accounts, clock } = fixture(t);
  const first = await accounts.add({ email: 'ana@school.example' });
  t.ok(first.token, 'a local account gets a link');
  await t.rejects(accounts.add({ email: 'ANA@school.example' }), { code: 'account_exists', field: 'email' });
  const reset = await accounts.reset('ana@school.example');
  await t.rejects(accounts.usePasswordLink(first.token!, good), { code: 'link_invalid' }, 'replaced by reset');
  await t.rejects(accounts.usePasswordLink(reset.token, 'password1234'), { code: 'invalid_field' }, 'weak');
  clock.advance(72 * 3600_000);
  await t.rejects(accounts.usePasswordLink(reset.token, good), { code: 'link_invalid' }, 'expired at 72 h');
  const fresh = await accounts.reset('ana@school.example');
  clock.advance(72 * 3600_000 - 1000);
  await accounts.usePasswordLink(fresh.token, good);
  await t.rejects(accounts.usePasswordLink(fresh.token, good), { code: 'link_invalid' }, 'once');
  await t.rejects(accounts.usePasswordLink('not a token', good), { code: 'link_invalid' });

  const session = await accounts.signIn('ana@school.example', good, '10.0.0.1');
  t.match(await accounts.session(session.token), {
    account: { email: 'ana@school.example' },
    csrfToken: csrfTokenOf(session.token),
  });
  clock.advance(14 * 24 * 3600_000);
  t.equal(await accounts.session(session.token), null, 'a session lasts 14 days');

  const a = await accounts.signIn('ana@school.example', good, '10.0.0.1');
  await accounts.signOut(a.token);
  t.equal(await accounts.session(a.token), null, 'signed out');
  const b = await accounts.signIn('ana@school.example', good, '10.0.0.1');
  await accounts.disable('ana@school.example');
  t.equal(await accounts.session(b.token), null, 'disabled');
  await t.rejects(accounts.signIn('ana@school.example', good, '10.0.0.1'), { code: 'sign_in_failed' });
  await accounts.disable('ana@school.example', false);
  t.equal(await accounts.session(b.token), null, 'enabling again does not bring the session back');
  const c = await accounts.signIn('ana@school.example', good, '10.0.0.1');
  await accounts.setPassword('ana@school.example', 'Heftklammer-Tafel-7');
  t.equal(await accounts.session(c.token), null, 'a new password ends the sessions');
  const d = await accounts.signIn('ana@school.example', 'Heftklammer-Tafel-7', '10.0.0.1');
  await accounts.reset('ana@school.example');
  t.equal(await accounts.session(d.token), null, 'reset ends them too');
  await t.rejects(
    accounts.signIn('ana@school.example', 'Heftklammer-Tafel-7', '10.0.0.1'),
    { code: 'sign_in_failed' },
    'and clears the password',
  );
  await accounts.remove('ana@school.example');
  await t.rejects(accounts.show('ana@school.example'), { code: 'account_not_found' });
});

t.test('the first admin account is made once', async (t) => {
  const { accounts } = fixture(t);
  const first = await accounts.addFirstAdmin('admin@localhost');
  t.match(first, { account: { email: 'admin@localhost', admin: true, name: 'Admin' }, token: String });
  t.equal(await accounts.addFirstAdmin('admin@localhost'), null, 'not again');
  await accounts.remove('admin@localhost');
  await accounts.add({ email: 'someone@school.example' });
  t.equal(await accounts.addFirstAdmin('admin@localhost'), null, 'not while any account exists');
});

t.test('sign-ins are limited per account and per client', async (t) => {
  const { accounts, clock } = fixture(t);
  const { token } = await accounts.add({ email: 'cem@school.example' });
  await accounts.usePasswordLink(token!, good);
  // Per account: ten failures from ten clients, then even the right password from a new client waits.
  for (let i = 0; i < 10; i++)
    await t.rejects(accounts.signIn('cem@school.example', 'wrong-but-long', `10.0.0.${i}`), { code: 'sign_in_failed' });
  const locked = await accounts.signIn('cem@school.example', good, '10.0.9.9').catch((e: unknown) => e);
  t.ok(locked instanceof TooManyAttemptsError && locked.code === 'too_many_sign_ins', 'locked');
  t.equal(
    (locked as TooManyAttemptsError).retryAfterSecs,
    15 * 60,
    'Retry-After: when the oldest failure leaves the window',
  );
  clock.advance(15 * 60_000 + 1);
  t.ok(await accounts.signIn('cem@school.example', good, '10.0.9.9'), 'then she signs in');

  // Per client: thirty failures against any emails, sent at once, then 429 for every email from it.
  const flood = await Promise.allSettled(
    Array.from({ length: 40 }, (_, i) => accounts.signIn(`u${i}@school.example`, 'wrong-but-long', '192.0.2.7')),
  );
  const codes = flood.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'));
  t.equal(codes.filter((c) => c === 'sign_in_failed').length, 30, 'thirty answered');
  t.equal(codes.filter((c) => c === 'too_many_sign_ins').length, 10, 'the rest refused, in flight counted');
  await t.rejects(accounts.signIn('cem@school.example', good, '192.0.2.7'), { code: 'too_many_sign_ins' });
  t.ok(await accounts.signIn('cem@school.example', good, '192.0.2.8'), 'another client is not held');
  await accounts.sweep();
});
