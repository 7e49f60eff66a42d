// The store the daemon serves from (issue 34 stage 3): SERVICE_DATABASE_URL's SQLite files in the
// data directory, or its PostgreSQL database. Either way the same bundle: the engine's stores
// behind the asynchronous ports, readiness's committed write, the signing key's place and, on
// PostgreSQL, the meeting API's store on the engine's unit of work. openServices takes it and
// opens nothing itself, so a PostgreSQL installation never creates a SQLite file.
import type { AsyncCompatStore } from '../compat/confapi/async-store.js';
import { PostgresCompatStore } from '../compat/store/postgres-store.js';
import { compatMigrationSteps, compatSchema } from '../compat/store/postgres-schema.js';
import { EnvironmentError } from '../config/environment-error.js';
import type { Config } from '../config/settings.js';
import type { AsyncStores } from '../engine/async-ports.js';
import type { LeaseStore, RoomFence } from '../engine/cluster/leases.js';
import type { MediaServerStore } from '../engine/cluster/media-servers.js';
import { aliveWithinMs, type NodeRegistry } from '../engine/cluster/nodes.js';
import type { WriteProbe } from '../engine/health/readiness.js';
import { migratePostgres } from '../platform/pg-migrate.js';
import { isStoreUnavailable, openPostgres } from '../platform/postgres.js';
import { sqliteAsyncStores } from '../store/async-sqlite.js';
import { openDatabase } from '../store/database.js';
import { engineMigrationSteps, engineSchema } from '../store/postgres/schema.js';
import { PostgresMediaServerStore } from '../store/postgres/media-server-store.js';
import { PostgresNodeLock } from '../store/postgres/node-lock.js';
import { PostgresNodeRegistry } from '../store/postgres/node-registry.js';
import { PostgresLeaseStore } from '../store/postgres/room-leases.js';
import { postgresStores } from '../store/postgres/stores.js';
import { PostgresWriteProbe } from '../store/postgres/write-probe.js';
import { fileSigningKey, postgresSigningKey, type SigningKeyStore } from './signing-key.js';

export interface StoreBundle {
  /** Which store, for the log and the commands that differ (backup). */
  readonly kind: 'sqlite' | 'postgres';
  readonly stores: AsyncStores;
  /** Readiness's real committed write. */
  readonly probe: WriteProbe;
  readonly signingKey: SigningKeyStore;
  /**
   * The meeting API's store when it lives with the engine's (PostgreSQL: schema meet_compat, its
   * writes joining the engine's units); null on SQLite, where the module opens its own file.
   */
  readonly compatStore: AsyncCompatStore | null;
  /** The registry of a cluster's nodes (PostgreSQL); null on SQLite, which serves one node. */
  readonly nodes: NodeRegistry | null;
  /** What a node of a cluster needs of the store (PostgreSQL); null on SQLite, which serves one node. */
  readonly cluster: ClusterStores | null;
  /** The Janus servers of SERVICE_JANUS_URLS and their meetings (issue 35 point 6). */
  readonly mediaServers: MediaServerStore;
  /** Closes the database (the stores' syncs first); after every queued write was committed. */
  close(): Promise<void>;
}

/** The store's part of issue 35 stage 2: leases, the fence, the node's lock. Nothing changes until `fenceWith`. */
export interface ClusterStores {
  readonly leases: LeaseStore;
  /** From now on: every write of a room's state is fenced, and only the rooms this node holds are read at start. */
  fenceWith(fence: RoomFence): void;
  /** Takes the node's session lock on a connection of its own (false: another session holds it); `release` frees it. */
  takeNodeLock(nodeId: string): Promise<{ hold(): Promise<boolean>; release(): Promise<void> } | null>;
  /** What the room store kept of a room is read anew (the room changed owner). */
  forgetRoom(roomId: string): void;
}

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePoolSize' | 'databaseStatementTimeoutMs'> &
  Partial<Pick<Config, 'natsUrl'>>;

/**
 * Opens the configured store and brings its schemas to this release's version: SQLite's engine
 * file in the data directory, or both PostgreSQL schemas (engine and meeting API), each under its
 * advisory lock, so daemons starting together migrate once. A schema newer than this release is
 * SchemaTooNewError, the pool closed.
 */
export async function openStoreBundle(config: StoreConfig): Promise<StoreBundle> {
  const location = config.databaseUrl;
  if (location.kind === 'sqlite') {
    const db = openDatabase(config.dataDir);
    const stores = sqliteAsyncStores(db);
    return {
      kind: 'sqlite',
      stores,
      probe: stores.probe,
      signingKey: fileSigningKey(config.dataDir),
      compatStore: null,
      nodes: null,
      cluster: null,
      mediaServers: stores.mediaServers,
      close: async () => {
        stores.close();
        db.close();
      },
    };
  }
  const sql = openPostgres(location, {
    max: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    schema: engineSchema,
    // A node of a cluster frozen inside a transaction would hold its room's lease row (the epoch
    // fence reads it FOR SHARE) until it wakes, and no other node could claim the room: the server
    // ends such a session once a node would be dead to the others anyway.
    ...(config.natsUrl ? { idleInTransactionMs: aliveWithinMs } : {}),
  });
  try {
    await migratePostgres(sql, engineSchema, engineMigrationSteps());
    await migratePostgres(sql, compatSchema, compatMigrationSteps());
  } catch (err) {
    await sql.end({ timeout: 5 });
    if (!isStoreUnavailable(err)) throw err;
    // Exit 69 with a hint, as for anything else the machine lacks; the URL holds no password.
    const where = `${location.host}:${location.port}/${location.database}`;
    throw new EnvironmentError(
      `PostgreSQL at ${where} (SERVICE_DATABASE_URL) cannot be reached: ${(err as Error).message}`,
      'start PostgreSQL or correct SERVICE_DATABASE_URL; meetctl doctor checks the database',
      { cause: err },
    );
  }
  // One serving daemon per database in this release (the cluster is the next issue's): it may keep the rooms it read.
  const stores = postgresStores(sql, { keepRooms: true });
  let lockClient: ReturnType<typeof openPostgres> | null = null;
  const cluster: ClusterStores = {
    leases: new PostgresLeaseStore(sql),
    fenceWith: (fence) => stores.unitOfWork.fenceWith(fence),
    async takeNodeLock(nodeId) {
      // One connection of its own, never recycled: its end is the node's death to the others.
      lockClient ??= openPostgres(location, {
        max: 1,
        statementTimeoutMs: 5000,
        schema: engineSchema,
        lifetime: 'forever',
      });
      return PostgresNodeLock.take(lockClient, nodeId);
    },
    forgetRoom: (roomId) => stores.rooms.forget(roomId),
  };
  return {
    kind: 'postgres',
    stores,
    probe: new PostgresWriteProbe(sql),
    signingKey: postgresSigningKey(sql),
    compatStore: new PostgresCompatStore(stores.unitOfWork),
    nodes: new PostgresNodeRegistry(sql),
    cluster,
    mediaServers: new PostgresMediaServerStore(sql),
    close: async () => {
      await lockClient?.end({ timeout: 5 });
      await sql.end({ timeout: 5 });
    },
  };
}
