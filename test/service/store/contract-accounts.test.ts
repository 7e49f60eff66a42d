// Issue 34 point 5: the organiser accounts' contract (accounts, one-time links, sessions, single
// sign-on identities), one suite on both stores: what is written reads back the same, emails and
// ids are unique, the list is in byte order of the email, links are single use and only the newest
// works, a delete takes links, sessions and identities along and leaves rooms without an owner,
// expired ones go, and a write inside a failed unit of work is not kept.
import type { Account } from '../../../src/engine/accounts/account.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const at = (day: number) => `2030-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;

const account = (accountId: string, email: string, fields: Partial<Account> = {}): Account => ({
  accountId,
  email,
  name: `Name of ${accountId}`,
  admin: false,
  disabled: false,
  source: 'local',
  passwordHash: null,
  createdAt: at(1),
  updatedAt: at(1),
  ...fields,
});

const bytes = (text: string) => Buffer.from(text);

onEachStore('an account reads back by id and email; ids and emails are unique; update, count', async (t, stores) => {
  const { accounts } = stores;
  t.equal(await accounts.count(), 0);
  const ana = account('a-1', 'ana@example.org', { admin: true, source: 'oidc', passwordHash: 'scrypt$x', name: 'Ána' });
  t.equal(await accounts.insert(ana), true);
  t.equal(await accounts.insert(account('a-2', 'ana@example.org')), false, 'the email is taken');
  t.equal(await accounts.insert(account('a-1', 'other@example.org')), false, 'the id is taken');
  t.same(await accounts.byId('a-1'), ana, 'every field as written');
  t.same(await accounts.byEmail('ana@example.org'), ana);
  t.equal(await accounts.byId('absent'), null);
  t.equal(await accounts.byEmail('ANA@example.org'), null, 'the email as stored (normalised by the caller)');
  const changed = { ...ana, name: 'Ana B.', admin: false, disabled: true, passwordHash: null, updatedAt: at(2) };
  await accounts.update(changed);
  t.same(await accounts.byId('a-1'), changed);
  await accounts.update({ ...changed, email: 'new@example.org', createdAt: at(9) });
  t.same(await accounts.byId('a-1'), changed, 'neither email nor creation time change');
  t.equal(await accounts.count(), 1);
});

onEachStore('list: by email in byte order', async (t, { accounts }) => {
  for (const [id, email] of [
    ['1', 'b@x'],
    ['2', 'B@x'],
    ['3', 'a@x'],
    ['4', '_@x'],
  ])
    await accounts.insert(account(id!, email!));
  t.same(
    (await accounts.list()).map((a) => a.email),
    ['B@x', '_@x', 'a@x', 'b@x'],
  );
  t.equal(await accounts.count(), 4);
});

onEachStore('links: single use, only the newest works', async (t, stores) => {
  const { accounts } = stores;
  await accounts.insert(account('a-1', 'a@x'));
  const link = (hash: string, day: number) => ({
    linkHash: bytes(hash),
    accountId: 'a-1',
    purpose: 'set_password' as const,
    createdAt: at(day),
    expiresAt: at(day + 2),
  });
  await accounts.replaceLink(link('old', 1));
  await accounts.replaceLink(link('new', 2));
  t.equal(await accounts.takeLink(bytes('old')), null, 'the earlier link is gone');
  t.same(await accounts.takeLink(bytes('new')), link('new', 2));
  t.equal(await accounts.takeLink(bytes('new')), null, 'taken once');
  await t.rejects(accounts.replaceLink({ ...link('x', 3), accountId: 'absent' }), 'a link needs its account');
});

onEachStore('sessions: read with their account, deleted one by one or all of an account', async (t, stores) => {
  const { accounts } = stores;
  await accounts.insert(account('a-1', 'a@x'));
  await accounts.insert(account('a-2', 'b@x'));
  const session = (hash: string, accountId: string) => ({
    sessionHash: bytes(hash),
    accountId,
    createdAt: at(1),
    expiresAt: at(5),
  });
  await accounts.insertSession(session('s-1', 'a-1'));
  await accounts.insertSession(session('s-2', 'a-1'));
  await accounts.insertSession(session('s-3', 'a-2'));
  await t.rejects(accounts.insertSession(session('s-1', 'a-2')), 'a session hash is unique');
  t.same(await accounts.session(bytes('s-1')), { session: session('s-1', 'a-1'), account: account('a-1', 'a@x') });
  t.equal(await accounts.session(bytes('absent')), null);
  await accounts.deleteSession(bytes('s-1'));
  t.equal(await accounts.session(bytes('s-1')), null);
  t.ok(await accounts.session(bytes('s-2')));
  await accounts.deleteSessions('a-1');
  t.equal(await accounts.session(bytes('s-2')), null);
  t.ok(await accounts.session(bytes('s-3')), "another account's session stays");
});

onEachStore('identities: one account per identity, one identity per issuer and account', async (t, stores) => {
  const { accounts } = stores;
  await accounts.insert(account('a-1', 'a@x'));
  await accounts.insert(account('a-2', 'b@x'));
  t.equal(await accounts.byIdentity('https://idp', 'sub-1'), null);
  t.equal(await accounts.linkIdentity('https://idp', 'sub-1', 'a-1', at(1)), true);
  t.equal(await accounts.linkIdentity('https://idp', 'sub-1', 'a-2', at(1)), false, 'the identity is linked');
  t.equal(await accounts.linkIdentity('https://idp', 'sub-2', 'a-1', at(1)), false, 'the account has one there');
  t.equal(await accounts.linkIdentity('https://other', 'sub-1', 'a-1', at(1)), true, 'another issuer');
  t.same(await accounts.byIdentity('https://idp', 'sub-1'), account('a-1', 'a@x'));
  t.equal(await accounts.byIdentity('https://idp', 'sub-2'), null);
  t.same((await accounts.byIdentity('https://other', 'sub-1'))?.accountId, 'a-1');
});

onEachStore('a delete takes links, sessions and identities along; rooms keep no owner', async (t, stores) => {
  const { accounts, rooms } = stores;
  await accounts.insert(account('a-1', 'a@x'));
  await rooms.insert({ ...waitingRoomFixture('owned'), ownerAccountId: 'a-1' });
  await accounts.replaceLink({
    linkHash: bytes('l'),
    accountId: 'a-1',
    purpose: 'set_password',
    createdAt: at(1),
    expiresAt: at(3),
  });
  await accounts.insertSession({ sessionHash: bytes('s'), accountId: 'a-1', createdAt: at(1), expiresAt: at(3) });
  await accounts.linkIdentity('https://idp', 'sub', 'a-1', at(1));
  t.equal(await accounts.delete('a-1'), true);
  t.equal(await accounts.delete('a-1'), false);
  t.equal(await accounts.byId('a-1'), null);
  t.equal(await accounts.session(bytes('s')), null);
  t.equal(await accounts.byIdentity('https://idp', 'sub'), null);
  await accounts.insert(account('a-1', 'a@x'));
  t.equal(await accounts.takeLink(bytes('l')), null, 'the link went with the account');
  t.equal(await accounts.session(bytes('s')), null, 'and the session');
  t.equal((await rooms.get('owned'))?.ownerAccountId, null);
});

onEachStore('expired sessions and links go, at or before the time given', async (t, stores) => {
  const { accounts } = stores;
  for (const [id, email] of [
    ['a-1', 'a@x'],
    ['a-2', 'b@x'],
  ])
    await accounts.insert(account(id!, email!));
  const expiring = (hash: string, day: number) => ({
    sessionHash: bytes(hash),
    accountId: 'a-1',
    createdAt: at(1),
    expiresAt: at(day),
  });
  await accounts.insertSession(expiring('early', 3));
  await accounts.insertSession(expiring('now', 4));
  await accounts.insertSession(expiring('later', 5));
  const link = (accountId: string, day: number) => ({
    linkHash: bytes(`link-${accountId}`),
    accountId,
    purpose: 'set_password' as const,
    createdAt: at(1),
    expiresAt: at(day),
  });
  await accounts.replaceLink(link('a-1', 4));
  await accounts.replaceLink(link('a-2', 5));
  await accounts.deleteExpired(at(4));
  t.equal(await accounts.session(bytes('early')), null);
  t.equal(await accounts.session(bytes('now')), null);
  t.ok(await accounts.session(bytes('later')));
  t.equal(await accounts.takeLink(bytes('link-a-1')), null);
  t.same(await accounts.takeLink(bytes('link-a-2')), link('a-2', 5));
});

onEachStore('writes inside a failed unit of work are not kept', async (t, stores) => {
  const { accounts, unitOfWork } = stores;
  await accounts.insert(account('a-1', 'a@x'));
  const failed = unitOfWork.run(async () => {
    await accounts.insert(account('a-2', 'b@x'));
    await accounts.update({ ...account('a-1', 'a@x'), name: 'lost' });
    await accounts.replaceLink({
      linkHash: bytes('l'),
      accountId: 'a-1',
      purpose: 'set_password',
      createdAt: at(1),
      expiresAt: at(3),
    });
    await accounts.insertSession({ sessionHash: bytes('s'), accountId: 'a-1', createdAt: at(1), expiresAt: at(3) });
    await accounts.linkIdentity('https://idp', 'sub', 'a-1', at(1));
    throw new Error('the sign-up failed');
  });
  await t.rejects(failed, /the sign-up failed/);
  t.same(await accounts.list(), [account('a-1', 'a@x')]);
  t.equal(await accounts.takeLink(bytes('l')), null);
  t.equal(await accounts.session(bytes('s')), null);
  t.equal(await accounts.byIdentity('https://idp', 'sub'), null);
});
