// Issue 34 stage 3: the daemon's store on PostgreSQL (daemon/store-bundle.ts). Daemons starting
// together on an empty database migrate it once (each schema under its advisory lock); a database
// out of reach at start is refused as the machine's fault (exit 69), with nothing written to the
// data directory; the meeting API's store runs on the engine's unit of work.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import postgres from 'postgres';
import { EnvironmentError } from '../../../src/config/environment-error.js';
import { loadConfig } from '../../../src/config/load.js';
import { startDaemon } from '../../../src/daemon/run.js';
import { openStoreBundle } from '../../../src/daemon/store-bundle.js';
import { compatMigrationSteps } from '../../../src/compat/store/postgres-schema.js';
import { engineMigrationSteps } from '../../../src/store/postgres/schema.js';
import { freePort } from '../../helpers/net.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { freshDatabase, postgresTest } from '../../helpers/postgres.js';

function configOn(t: Parameters<Parameters<typeof postgresTest>[1]>[0], url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'meet-pg-bundle-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return loadConfig({
    env: {
      SERVICE_DATA_DIR: join(dir, 'data'),
      SERVICE_DATABASE_URL: url,
      SERVICE_MEDIA: 'mesh',
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      COMPAT_HTTP_ADDR: '127.0.0.1:0',
    },
  });
}

postgresTest('three stores opened at once on an empty database migrate it once', async (t) => {
  const db = await freshDatabase(t);
  const config = configOn(t, db.url);
  const bundles = await Promise.all([openStoreBundle(config), openStoreBundle(config), openStoreBundle(config)]);
  t.teardown(() => Promise.all(bundles.map((b) => b.close())));
  t.same(
    bundles.map((b) => b.kind),
    ['postgres', 'postgres', 'postgres'],
  );
  const sql = postgres(db.options);
  t.teardown(() => sql.end());
  for (const [schema, steps] of [
    ['meet_engine', engineMigrationSteps()],
    ['meet_compat', compatMigrationSteps()],
  ] as const) {
    const rows = await sql.unsafe<{ version: number }[]>(
      `SELECT version FROM ${schema}.schema_migrations ORDER BY version`,
    );
    t.same(
      rows.map((r) => r.version),
      steps.map((s) => s.version),
      `${schema}: every step applied once`,
    );
  }
  const keys = await Promise.all(bundles.map((b) => b.signingKey.getOrCreate()));
  t.same(keys[1], keys[0], 'one signing key for all of them');
  t.same(keys[2], keys[0]);
  await Promise.all(bundles.map((b) => b.probe.probeWrite()));
  const [probes] = await sql`SELECT value FROM meet_engine.instance_meta WHERE key = 'readiness_write_probes'`;
  t.equal(probes?.value, '3', 'the write probe commits a real write');
});

postgresTest(
  'PostgreSQL out of reach at start: refused as the machine fault, nothing in the data directory',
  async (t) => {
    const config = configOn(t, `postgres://meet@127.0.0.1:${await freePort()}/meet`);
    const refusal = await startDaemon(config, pino({ level: 'silent' })).then(
      async (daemon) => {
        await daemon.stop();
        return null;
      },
      (err: unknown) => err,
    );
    t.type(refusal, EnvironmentError);
    t.match(
      (refusal as Error).message,
      /^PostgreSQL at 127\.0\.0\.1:\d+\/meet \(SERVICE_DATABASE_URL\) cannot be reached/,
    );
    t.notOk(existsSync(join(config.dataDir, 'meet.sqlite')), 'no SQLite database made');
    t.same(
      (existsSync(config.dataDir) ? readdirSync(config.dataDir) : []).filter((f) => /sqlite|\.db$/.test(f)),
      [],
      'no SQLite file in the data directory',
    );
  },
);

postgresTest('the engine commits with synchronous_commit on, even where the database turned it off', async (t) => {
  const db = await freshDatabase(t);
  const admin = postgres(db.options);
  t.teardown(() => admin.end());
  await admin.unsafe(`ALTER DATABASE ${db.name} SET synchronous_commit = off`);
  const bundle = await openStoreBundle(configOn(t, db.url));
  t.teardown(() => bundle.close());
  const unit = bundle.stores.unitOfWork as unknown as {
    run<T>(work: () => Promise<T>): Promise<T>;
    connection(): postgres.Sql;
  };
  const inUnit = await unit.run(async () => (await unit.connection()`SHOW synchronous_commit`)[0]);
  t.same(inUnit, { synchronous_commit: 'on' }, "inside the engine's unit of work");
  const fresh = postgres(db.options);
  t.teardown(() => fresh.end());
  const [plain] = await fresh`SHOW synchronous_commit`;
  t.same(
    plain,
    { synchronous_commit: 'off' },
    'where a session of that database would otherwise commit asynchronously',
  );
});

postgresTest('rooms kept in memory are never older than a commit, units side by side', async (t) => {
  const db = await freshDatabase(t);
  const bundle = await openStoreBundle(configOn(t, db.url));
  t.teardown(() => bundle.close());
  const { rooms, unitOfWork } = bundle.stores;
  const room = { ...waitingRoomFixture('kept'), name: 'before' };
  await rooms.insert(room);
  t.equal((await rooms.get('kept'))?.name, 'before', 'read (and kept)');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // A unit renames the room and stays open while a read outside it runs.
  const unit = unitOfWork.run(async () => {
    await rooms.update({ ...room, name: 'after' });
    await held;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal((await rooms.get('kept'))?.name, 'before', 'outside the open unit: the committed name');
  release();
  await unit;
  t.equal((await rooms.get('kept'))?.name, 'after', 'once it committed: the new name, not a kept old copy');
  const failed = unitOfWork.run(async () => {
    await rooms.update({ ...room, name: 'rolled back' });
    throw new Error('taken back');
  });
  await t.rejects(failed, /taken back/);
  t.equal((await rooms.get('kept'))?.name, 'after', 'a rolled-back rename is not kept');
});
