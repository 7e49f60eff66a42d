import type { Config } from '../config/settings.js';
import { AccessTokenService } from '../engine/access/access-token-service.js';
import type { Clock } from '../engine/clock.js';
import { RoomService } from '../engine/rooms/room-service.js';
import { SqliteAccessTokenStore } from '../store/access-tokens-repository.js';
import { openDatabase, type Db } from '../store/database.js';
import { SqliteRoomStore } from '../store/rooms-repository.js';

export const systemClock: Clock = { now: () => new Date() };

/** The engine's services, wired to the SQLite store; the one place that knows both sides. */
export interface Services {
  readonly rooms: RoomService;
  readonly accessTokens: AccessTokenService;
  close(): void;
}

export function openServices(config: Pick<Config, 'dataDir' | 'waitingRoom' | 'waitingRoomMode'>, clock: Clock = systemClock): Services {
  const db: Db = openDatabase(config.dataDir);
  return {
    rooms: new RoomService(new SqliteRoomStore(db), clock, config),
    accessTokens: new AccessTokenService(new SqliteAccessTokenStore(db), clock),
    close: () => db.close(),
  };
}
