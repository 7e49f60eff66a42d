import type { AsyncPort } from '../engine/async-port.js';
import type { AsyncStores } from '../engine/async-ports.js';
import { plainStep, type SyncedLater, type UnitOfWork, type UnitStep } from '../engine/unit-of-work.js';
import { SqliteAccessTokenStore } from './access-token-store.js';
import { SqliteAccountStore } from './account-store.js';
import type { Db } from './database.js';
import { SqliteLiveStore } from './live-store.js';
import { SqliteMediaServerStore } from './media-server-store.js';
import { SqliteMeetingStore } from './meeting-store.js';
import { SqliteRoomStore } from './room-store.js';
import { SqliteWaitingRequestStore } from './waiting-request-store.js';
import { WalSync } from './wal-sync.js';
import { SqliteWriteProbe } from './write-probe.js';
import type { WriteProbe } from '../engine/health/readiness.js';
import { contextSlot } from '../platform/async-context.js';

const settled = Promise.resolve();

/**
 * The asynchronous unit of work on SQLite's one connection (issue 34 point 2). A better-sqlite3
 * transaction cannot span an await, so the unit is BEGIN IMMEDIATE ... COMMIT by hand, and units
 * take turns: while one is open, every other unit and every store call made outside a unit waits
 * for it, so nothing from outside joins the open transaction (or is rolled back with it). A unit
 * inside another is a savepoint. `runSyncedLater` (the knocks' group commit) commits at
 * synchronous=NORMAL and syncs the WAL on libuv's thread pool afterwards (wal-sync.ts): the next
 * unit's turn does not wait for that sync. A unit's calls are found by its context, or, for work
 * given a step (`runSyncedLater`, `runInSteps`: UnitStep), by a field set while a step runs, so the
 * knock, an admission and a bar run no AsyncLocalStorage (issue 34 point 7).
 */
class SqliteAsyncUnitOfWork implements UnitOfWork<'async'> {
  private readonly inside = contextSlot<number>();
  private turn: Promise<unknown> = Promise.resolve();
  /** Units open and calls waiting for their turn. */
  private busy = 0;
  private readonly release = (): void => void (this.busy -= 1);
  private savepoints = 0;
  /** Steps of the open unit's work running now (UnitStep): its store calls are the unit's. */
  private stepping = 0;
  private readonly wal: WalSync;

  constructor(private readonly db: Db) {
    this.wal = new WalSync(db);
  }

  /**
   * Runs `call` when no unit is open, or at once inside the caller's own unit. With nothing open
   * or waiting it runs now rather than a microtask later (one promise, not two: a knock's reads
   * of its room and its meeting come here); order among callers stays the order of their calls.
   */
  exclusive<T>(call: () => Promise<T> | T): Promise<T> {
    if (this.stepping > 0 || this.inside.getStore() !== undefined) return Promise.resolve(call());
    if (this.busy === 0) return this.now(call);
    this.busy += 1;
    const result = this.turn.then(call);
    this.turn = result.then(this.release, this.release);
    return result;
  }

  /** `call` with no unit open and none waiting: a store call answers at once, a unit holds the turn until it settled. */
  private now<T>(call: () => Promise<T> | T): Promise<T> {
    let value: Promise<T> | T;
    try {
      value = call();
    } catch (err) {
      return Promise.reject(err);
    }
    if (!(value instanceof Promise)) return Promise.resolve(value);
    this.busy += 1;
    this.turn = value.then(this.release, this.release);
    return value;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    const depth = this.inside.getStore() ?? (this.stepping > 0 ? 0 : undefined);
    if (depth !== undefined) return this.nested(work, depth + 1);
    return this.exclusive(() => this.transaction(work));
  }

  runSyncedLater<T>(work: (step: UnitStep) => Promise<T>): Promise<SyncedLater<T>> {
    // Inside another unit the sync is the outer one's; closing, no sync is left running.
    if (this.stepping > 0 || this.inside.getStore() !== undefined || !this.wal.available)
      return this.run(() => work(plainStep)).then((value) => ({ value, durable: settled }));
    // NORMAL holds only while this unit is open: every other unit and store call waits for its turn.
    // Its store calls are told by `step` (a field set while each write runs), not by a context.
    return this.exclusive(() => this.wal.atNormal(() => this.transaction(() => work(this.step), true))).then(
      (value) => ({
        value,
        durable: this.wal.sync(),
      }),
    );
  }

  runInSteps<T>(work: (step: UnitStep) => Promise<T>): Promise<T> {
    if (this.stepping > 0 || this.inside.getStore() !== undefined) return this.run(() => work(plainStep));
    return this.exclusive(() => this.transaction(() => work(this.step), true));
  }

  /** A step of the open unit's work: the store calls it makes before returning are the unit's. */
  private readonly step: UnitStep = (call) => {
    this.stepping += 1;
    try {
      return call();
    } finally {
      this.stepping -= 1;
    }
  };

  /** No sync after this one; the WAL's descriptor is closed once the last sync under way returned. */
  close(): void {
    this.wal.close();
  }

  /**
   * BEGIN ... COMMIT around `work`, chained rather than awaited: every knock's group commit comes
   * here. `work` runs in the unit's context unless it was given the unit's step (the group commit).
   */
  private transaction<T>(work: () => Promise<T>, stepped = false): Promise<T> {
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      return Promise.reject(err);
    }
    let running: Promise<T>;
    try {
      running = stepped ? work() : this.inside.run(0, work);
    } catch (err) {
      running = Promise.reject(err);
    }
    return running.then(
      (value) => {
        try {
          this.db.exec('COMMIT');
        } catch (err) {
          this.rollback();
          throw err;
        }
        return value;
      },
      (err: unknown) => {
        this.rollback();
        throw err;
      },
    );
  }

  private rollback(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  private async nested<T>(work: () => Promise<T>, depth: number): Promise<T> {
    const name = `unit_${depth}_${(this.savepoints += 1)}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const value = await this.inside.run(depth, work);
      this.db.exec(`RELEASE ${name}`);
      return value;
    } catch (err) {
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      throw err;
    }
  }
}

/** A synchronous store's methods, each answering a promise, taking its turn with the open units. */
function asyncOf<Port extends object>(store: Port, unit: SqliteAsyncUnitOfWork): AsyncPort<Port> {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => unit.exclusive(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  }) as unknown as AsyncPort<Port>;
}

/** The SQLite stores behind the asynchronous ports, and how to stop their syncs before the database closes. */
export interface SqliteAsyncStores extends AsyncStores {
  /** Readiness's committed write, in its turn: never inside a unit another caller has open on the connection. */
  readonly probe: WriteProbe;
  /** The Janus servers of SERVICE_JANUS_URLS and the meetings placed on them (issue 35 point 6). */
  readonly mediaServers: AsyncPort<SqliteMediaServerStore>;
  /** No WAL sync after this one; the WAL's descriptor is closed once the last sync returned. */
  close(): void;
}

/** Synchronous stores the caller also reads directly, to be shared rather than made a second time. */
export interface SharedSqliteStores {
  /**
   * The room store keeps the rooms it read in memory, true only while every write goes through
   * the same object: a second one on the same database would keep a stale copy of a changed or
   * deleted room.
   */
  readonly rooms?: SqliteRoomStore;
}

/**
 * The engine's SQLite stores behind the asynchronous ports, with their unit of work. Each store is
 * made on first use: a store prepares its statements when made, and every statement is kept for
 * the life of the process (platform/sqlite.ts), so a store nobody uses would only cost memory.
 */
export function sqliteAsyncStores(db: Db, shared: SharedSqliteStores = {}): SqliteAsyncStores {
  const unitOfWork = new SqliteAsyncUnitOfWork(db);
  const made = new Map<string, unknown>();
  const once = <T>(name: string, make: () => T): T => {
    if (!made.has(name)) made.set(name, make());
    return made.get(name) as T;
  };
  const live = () => once('live', () => asyncOf(new SqliteLiveStore(db), unitOfWork));
  return {
    get rooms() {
      return once('rooms', () => asyncOf(shared.rooms ?? new SqliteRoomStore(db), unitOfWork));
    },
    get waitingRequests() {
      return once('waitingRequests', () => asyncOf(new SqliteWaitingRequestStore(db), unitOfWork));
    },
    get meetings() {
      return once('meetings', () => asyncOf(new SqliteMeetingStore(db), unitOfWork));
    },
    get accessTokens() {
      return once('accessTokens', () => asyncOf(new SqliteAccessTokenStore(db), unitOfWork));
    },
    get accounts() {
      return once('accounts', () => asyncOf(new SqliteAccountStore(db), unitOfWork));
    },
    get chat() {
      return live();
    },
    get groupMessages() {
      return live();
    },
    get locks() {
      return live();
    },
    get subgroupTimers() {
      return live();
    },
    get stats() {
      return live();
    },
    get probe() {
      return once('probe', () => asyncOf(new SqliteWriteProbe(db), unitOfWork));
    },
    get mediaServers() {
      return once('mediaServers', () => asyncOf(new SqliteMediaServerStore(db), unitOfWork));
    },
    unitOfWork,
    close: () => unitOfWork.close(),
  };
}
