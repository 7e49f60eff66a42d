// Two daemons started on one data directory at once (an operator's second start, a test running
// its refusals side by side) both find no token, then both insert the first admin token: the
// second must start without one, not exit "a token named initial-admin exists already".
import t from 'tap';
import { AccessTokenService, initialTokenName } from '../../../../src/engine/access/access-token-service.js';
import type { AccessToken } from '../../../../src/engine/access/access-token.js';
import type { AsyncAccessTokenStore } from '../../../../src/engine/async-ports.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

/** A store whose reads lag behind another process: it lists nothing, yet the name is taken. */
function raceLostStore(): AsyncAccessTokenStore & { inserted: AccessToken[] } {
  const inserted: AccessToken[] = [];
  return {
    inserted,
    insert: async (token) => (token.name === initialTokenName ? false : (inserted.push(token), true)),
    findByHash: async () => null,
    list: async () => [],
    delete: async () => false,
    touch: async () => undefined,
    initialTokenIssued: async () => false,
    markInitialTokenIssued: async () => {
      throw new Error('marked by the process that lost the race');
    },
  };
}

t.test('the first admin token lost to another process: none issued here, nothing delivered, no error', async (t) => {
  const service = new AccessTokenService(raceLostStore(), new FakeClock());
  let delivered = 0;
  t.equal(await service.issueInitialToken(() => delivered++), null);
  t.equal(delivered, 0, 'no token file is written for a token this process does not hold');
});

t.test('a token created by name that exists is still refused (token_exists)', async (t) => {
  const service = new AccessTokenService(raceLostStore(), new FakeClock());
  await t.rejects(service.create(initialTokenName), { code: 'token_exists' });
});
