// Two daemons started on one data directory at once (an operator's second start, a test running
// its refusals side by side) both find no token, then both insert the first admin token: the
// second must start without one, not exit "a token named initial-admin exists already".
import t from 'tap';
import { AccessTokenService, initialTokenName } from '../../../../src/engine/access/access-token-service.js';
import type { AccessToken, AccessTokenStore } from '../../../../src/engine/access/access-token.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

/** A store whose reads lag behind another process: it lists nothing, yet the name is taken. */
function raceLostStore(): AccessTokenStore & { inserted: AccessToken[] } {
  const inserted: AccessToken[] = [];
  return {
    inserted,
    insert: (token) => (token.name === initialTokenName ? false : (inserted.push(token), true)),
    findByHash: () => null,
    list: () => [],
    delete: () => false,
    touch: () => undefined,
    initialTokenIssued: () => false,
    markInitialTokenIssued: () => {
      throw new Error('marked by the process that lost the race');
    },
  };
}

t.test('the first admin token lost to another process: none issued here, nothing delivered, no error', (t) => {
  const service = new AccessTokenService(raceLostStore(), new FakeClock());
  let delivered = 0;
  t.equal(
    service.issueInitialToken(() => delivered++),
    null,
  );
  t.equal(delivered, 0, 'no token file is written for a token this process does not hold');
  t.end();
});

t.test('a token created by name that exists is still refused (token_exists)', (t) => {
  const service = new AccessTokenService(raceLostStore(), new FakeClock());
  t.throws(() => service.create(initialTokenName), { code: 'token_exists' });
  t.end();
});
