import type { AsyncStores } from '../../engine/async-ports.js';
import type { Sql } from '../../platform/postgres.js';
import { PostgresAccessTokenStore } from './access-token-store.js';
import { PostgresAccountStore } from './account-store.js';
import { PostgresLiveStore } from './live-store.js';
import { PostgresMeetingStore, PostgresWaitingRequestStore } from './meeting-store.js';
import { PostgresRoomStore } from './room-store.js';
import { PostgresUnitOfWork } from './unit-of-work.js';

/**
 * The engine's stores on PostgreSQL, with their unit of work. `sql` is a pool whose search_path
 * is the engine's schema (meet_engine), migrated beforehand (platform/pg-migrate.ts).
 */
export function postgresStores(
  sql: Sql,
  options: {
    /** Keep the rooms read in memory: only while this process is the database's one writer of rooms (room-store.ts). */
    readonly keepRooms?: boolean;
  } = {},
): AsyncStores & { readonly unitOfWork: PostgresUnitOfWork; readonly rooms: PostgresRoomStore } {
  const unitOfWork = new PostgresUnitOfWork(sql);
  const live = new PostgresLiveStore(unitOfWork);
  return {
    rooms: new PostgresRoomStore(unitOfWork, options.keepRooms ?? false),
    waitingRequests: new PostgresWaitingRequestStore(unitOfWork),
    meetings: new PostgresMeetingStore(unitOfWork),
    accessTokens: new PostgresAccessTokenStore(unitOfWork),
    accounts: new PostgresAccountStore(unitOfWork),
    chat: live,
    groupMessages: live,
    locks: live,
    subgroupTimers: live,
    stats: live,
    unitOfWork,
  };
}
