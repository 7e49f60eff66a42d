import type { AccessTokenStore } from './access/access-token.js';
import type { AsyncPort } from './async-port.js';
import type { AccountStore } from './accounts/account.js';
import type { ChatStore } from './live/chat-log.js';
import type { LockStore } from './live/meeting-locks.js';
import type { SubgroupTimerStore } from './live/subgroup-timer.js';
import type { GroupMessageStore } from './live/subgroups.js';
import type { MeetingStore } from './meetings/meeting.js';
import type { RoomStore } from './rooms/room.js';
import type { StatsStore } from './stats/meeting-stats.js';
import type { UnitOfWork } from './unit-of-work.js';
import type { WaitingRequestStore } from './waiting/waiting-request.js';

export type AsyncRoomStore = AsyncPort<RoomStore>;
export type AsyncWaitingRequestStore = AsyncPort<WaitingRequestStore>;
export type AsyncMeetingStore = AsyncPort<MeetingStore>;
export type AsyncAccessTokenStore = AsyncPort<AccessTokenStore>;
export type AsyncAccountStore = AsyncPort<AccountStore>;
export type AsyncChatStore = AsyncPort<ChatStore>;
export type AsyncGroupMessageStore = AsyncPort<GroupMessageStore>;
export type AsyncLockStore = AsyncPort<LockStore>;
export type AsyncSubgroupTimerStore = AsyncPort<SubgroupTimerStore>;
export type AsyncStatsStore = AsyncPort<StatsStore>;

/**
 * The engine's repositories on one store, with the unit of work they write through: inside
 * `unitOfWork.run` their writes commit together or not at all (a waiting-room transition and its
 * timeline entry, a knock and its request), on SQLite and on PostgreSQL alike.
 */
export interface AsyncStores {
  readonly rooms: AsyncRoomStore;
  readonly waitingRequests: AsyncWaitingRequestStore;
  readonly meetings: AsyncMeetingStore;
  readonly accessTokens: AsyncAccessTokenStore;
  readonly accounts: AsyncAccountStore;
  readonly chat: AsyncChatStore;
  readonly groupMessages: AsyncGroupMessageStore;
  readonly locks: AsyncLockStore;
  readonly subgroupTimers: AsyncSubgroupTimerStore;
  readonly stats: AsyncStatsStore;
  readonly unitOfWork: UnitOfWork<'async'>;
}
