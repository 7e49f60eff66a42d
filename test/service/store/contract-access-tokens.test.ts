// Issue 34 point 5: the access-token repository's contract, one suite on both stores (SQLite
// through the asynchronous port, and PostgreSQL): tokens read back as written, found by their
// hash, listed by creation then name in byte order, names and hashes unique, the instance's
// "initial token issued" mark, and a write inside a failed unit of work is not kept.
import type { AccessToken } from '../../../src/engine/access/access-token.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const token = (name: string, createdAt: string, hash = `hash-of-${name}`): AccessToken => ({
  name,
  tokenHash: Buffer.from(hash),
  createdAt,
  lastUsedAt: null,
});

onEachStore('a token reads back by its hash; names and hashes are unique; touch and delete', async (t, stores) => {
  const { accessTokens: tokens } = stores;
  const first = token('ci-runner', '2030-01-01T00:00:00.000Z');
  t.equal(await tokens.insert(first), true);
  t.equal(await tokens.insert(token('ci-runner', '2030-01-02T00:00:00.000Z', 'other')), false, 'the name is taken');
  await t.rejects(tokens.insert(token('copy', '2030-01-02T00:00:00.000Z', 'hash-of-ci-runner')), 'the hash is unique');
  t.same(await tokens.findByHash(Buffer.from('hash-of-ci-runner')), first);
  t.equal(await tokens.findByHash(Buffer.from('no such hash')), null);
  t.ok(Buffer.isBuffer((await tokens.findByHash(first.tokenHash))?.tokenHash), 'the hash reads back as bytes');
  await tokens.touch('ci-runner', '2030-01-05T00:00:00.000Z');
  await tokens.touch('absent', '2030-01-05T00:00:00.000Z');
  t.equal((await tokens.findByHash(first.tokenHash))?.lastUsedAt, '2030-01-05T00:00:00.000Z');
  t.equal(await tokens.delete('ci-runner'), true);
  t.equal(await tokens.delete('ci-runner'), false);
  t.equal(await tokens.findByHash(first.tokenHash), null);
  t.same(await tokens.list(), []);
});

onEachStore('list: by creation time, then by name in byte order', async (t, { accessTokens: tokens }) => {
  const same = '2030-01-01T00:00:00.000Z';
  for (const [name, at] of [
    ['b', same],
    ['late', '2030-02-01T00:00:00.000Z'],
    ['B', same],
    ['a', same],
    ['early', '2029-12-31T00:00:00.000Z'],
  ] as const)
    await tokens.insert(token(name, at));
  t.same(
    (await tokens.list()).map((k) => k.name),
    ['early', 'B', 'a', 'b', 'late'],
  );
});

onEachStore('the initial token mark: absent, then set, set again', async (t, { accessTokens: tokens }) => {
  t.equal(await tokens.initialTokenIssued(), false);
  await tokens.markInitialTokenIssued();
  t.equal(await tokens.initialTokenIssued(), true);
  await tokens.markInitialTokenIssued();
  t.equal(await tokens.initialTokenIssued(), true);
});

onEachStore('a write inside a failed unit of work is not kept', async (t, stores) => {
  const { accessTokens: tokens, unitOfWork } = stores;
  await tokens.insert(token('kept', '2030-01-01T00:00:00.000Z'));
  const failed = unitOfWork.run(async () => {
    await tokens.insert(token('lost', '2030-01-01T00:00:00.000Z'));
    await tokens.markInitialTokenIssued();
    await tokens.touch('kept', '2030-01-09T00:00:00.000Z');
    throw new Error('the issue failed');
  });
  await t.rejects(failed, /the issue failed/);
  t.same(
    (await tokens.list()).map((k) => [k.name, k.lastUsedAt]),
    [['kept', null]],
  );
  t.equal(await tokens.initialTokenIssued(), false);
});
