// Issue 34 point 2: the rooms API's access tokens served from the asynchronous store port, once per
// store (SQLite behind the port, and PostgreSQL): a token is created, verified (its last use written
// at most once a minute), listed, revoked; the first admin token is issued once, and taken back when
// its delivery fails.
import { AccessTokenService, initialTokenName } from '../../../src/engine/access/access-token-service.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { onEachStore } from '../../helpers/store-adapters.js';

onEachStore('create, verify (last use at most once a minute), list, revoke', async (t, stores) => {
  const clock = new FakeClock();
  const service = new AccessTokenService(stores.accessTokens, clock);
  const issued = await service.create('ci-runner');
  t.match(issued.token, /^mt_/);
  await t.rejects(service.create('ci-runner'), { code: 'token_exists' }, 'a name is taken once');
  await t.rejects(service.create('bad name'), { code: 'invalid_field', field: 'name' });
  t.equal(await service.verify('mt_not-a-token'), null);
  t.equal((await service.verify(issued.token))?.name, 'ci-runner');
  const first = (await service.list())[0]?.lastUsedAt;
  t.equal(first, clock.now().toISOString(), 'the first use is written');
  clock.advance(59_000);
  await service.verify(issued.token);
  t.equal((await service.list())[0]?.lastUsedAt, first, 'not again within the minute');
  clock.advance(1_000);
  await service.verify(issued.token);
  t.equal((await service.list())[0]?.lastUsedAt, clock.now().toISOString(), 'again after it');
  await service.revoke('ci-runner');
  t.equal(await service.verify(issued.token), null, 'a revoked token is refused');
  await t.rejects(service.revoke('ci-runner'), { code: 'token_not_found' });
});

onEachStore(
  'the first admin token: issued once; a failed delivery takes it back for the next start',
  async (t, stores) => {
    const service = new AccessTokenService(stores.accessTokens, new FakeClock());
    await t.rejects(
      service.issueInitialToken(() => {
        throw new Error('disk full');
      }),
      /disk full/,
    );
    t.same(await service.list(), [], 'taken back');
    let delivered = '';
    const issued = await service.issueInitialToken((token) => (delivered = token.token));
    t.equal(issued?.name, initialTokenName);
    t.equal(delivered, issued?.token);
    t.equal(await service.issueInitialToken(() => t.fail('delivered twice')), null, 'never again');
  },
);
