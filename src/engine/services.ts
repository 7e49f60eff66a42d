import type { AccessTokenService } from './access/access-token-service.js';
import type { AccountService } from './accounts/account-service.js';
import type { Clock } from './clock.js';
import type { WriteProbe } from './health/readiness.js';
import type { LiveApi } from './live/live-api.js';
import type { MeetingService } from './meetings/meeting-service.js';
import type { RoomService } from './rooms/room-service.js';
import type { MeetingStats } from './stats/meeting-stats.js';
import type { TokenService } from './tokens/token-service.js';
import type { WaitingRoomService } from './waiting/waiting-room-service.js';

/**
 * The engine's services as the listeners (http/, compat/) see them. The daemon's wiring
 * (daemon/services.ts `Services`) extends this with what only it may do (sweep, close), so
 * the layers below the daemon depend on this type and never on the daemon.
 *
 * `Live` is the live connection: every layer may ask it the `LiveApi`; the engine listener
 * names the socket hub it drives (`EngineServices<LiveHub>`).
 */
export interface EngineServices<Live extends LiveApi = LiveApi> {
  readonly rooms: RoomService;
  readonly accessTokens: AccessTokenService;
  /** Organiser accounts, their one-time links and signed-in sessions. */
  readonly accounts: AccountService;
  readonly meetings: MeetingService;
  readonly waiting: WaitingRoomService;
  readonly tokens: TokenService;
  /** Per participant and meeting: audio, video, talk time, webcam intervals, chat counts. */
  readonly stats: MeetingStats;
  /** The live connection of every room. */
  readonly live: Live;
  /** A real committed write to the database, for /readyz. */
  readonly database: WriteProbe;
  /** The clock the services were wired with: the listeners read time from it too (tests pass a fake one). */
  readonly clock: Clock;
}
