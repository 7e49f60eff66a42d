// Issue 34 point 1: the signing key of join and session tokens behind one port, "get or create the
// key once". The file adapter is today's behaviour (the data directory's 0600 file, made once);
// the PostgreSQL adapter keeps it in meet_engine.signing_key (migration 021), so every node of a
// cluster signs and verifies with the same key: daemons starting at once on an empty database end
// with ONE key, and a token signed on one node verifies on another.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify, SignJWT } from 'jose';
import postgres from 'postgres';
import t from 'tap';
import { fileSigningKey, postgresSigningKey } from '../../../src/daemon/signing-key.js';
import { migratePostgres } from '../../../src/platform/pg-migrate.js';
import { engineMigrationSteps, engineSchema } from '../../../src/store/postgres/schema.js';
import { pool } from '../../helpers/compat-store-adapters.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

t.test('the file adapter: made once in the data directory (0600), the same key after', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-key-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const keys = await Promise.all([1, 2, 3].map(() => fileSigningKey(dir).getOrCreate()));
  t.equal(keys[0]!.length, 32);
  t.ok(
    keys.every((k) => Buffer.compare(k, keys[0]!) === 0),
    'one key',
  );
  t.equal(statSync(join(dir, 'signing-key')).mode & 0o777, 0o600);
  t.equal(readFileSync(join(dir, 'signing-key'), 'utf8'), `${Buffer.from(keys[0]!).toString('base64url')}\n`);
  t.same(await fileSigningKey(dir).getOrCreate(), keys[0], 'read back after a restart');
});

postgresTest('several daemons starting at once on an empty database end with ONE key in it', async (t) => {
  const database = await freshDatabase(t);
  await migratePostgres(pool(t, database, 1), engineSchema, engineMigrationSteps());
  // Each its own pool, as separate daemons would have.
  const nodes = Array.from({ length: 6 }, () => postgresSigningKey(pool(t, database, 1)));
  const keys = await Promise.all(nodes.map((node) => node.getOrCreate()));
  t.equal(keys[0]!.length, 32, '32 random bytes');
  t.ok(
    keys.every((k) => Buffer.compare(k, keys[0]!) === 0),
    'every node has the same key',
  );
  const admin = postgres({ ...database.options, onnotice: () => {} });
  t.teardown(() => admin.end());
  const rows = await admin`SELECT id, key FROM meet_engine.signing_key`;
  t.equal(rows.length, 1, 'one row');
  t.same(await postgresSigningKey(pool(t, database, 1)).getOrCreate(), keys[0], 'the same after a restart');

  // A token one node signed verifies on another.
  const token = await new SignJWT({ role: 'moderator' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('p-1')
    .sign(keys[1]!);
  const { payload } = await jwtVerify(token, keys[4]!);
  t.equal(payload.role, 'moderator');

  await t.rejects(
    admin`INSERT INTO meet_engine.signing_key (id, key) VALUES (2, ${Buffer.alloc(32)})`,
    'one row only (id = 1)',
  );
  await t.rejects(admin`UPDATE meet_engine.signing_key SET key = ${Buffer.alloc(8)}`, 'no key shorter than 32 bytes');
});
