import { AsyncLocalStorage } from 'node:async_hooks';
import type { AsyncDefer } from '../../src/engine/async-group-commit.js';
import type { AsyncStores } from '../../src/engine/async-ports.js';
import { AsyncTransactions } from '../../src/engine/async-transactions.js';
import type { Clock } from '../../src/engine/clock.js';
import { KeyedQueue } from '../../src/engine/keyed-queue.js';
import { silentLog } from '../../src/engine/listeners.js';
import { MeetingService } from '../../src/engine/meetings/meeting-service.js';
import { openAtStart } from '../../src/engine/meetings/open-meetings.js';
import type { WaitingRoomPolicy } from '../../src/engine/rooms/waiting-room-policy.js';
import { WaitingRoomService } from '../../src/engine/waiting/waiting-room-service.js';
import type { WaitingRoomOptions } from '../../src/engine/waiting/waiting-room-types.js';

const optional: WaitingRoomPolicy = { waitingRoom: 'optional', waitingRoomMode: null };

/**
 * The meetings and the waiting room over asynchronous stores (SQLite's behind the ports, or
 * PostgreSQL's), wired as the daemon wires them (daemon/services.ts), reloaded from the store.
 */
export async function engineOn(
  stores: Pick<AsyncStores, 'meetings' | 'waitingRequests' | 'unitOfWork'> & {
    rooms: Pick<AsyncStores['rooms'], 'get'>;
  },
  clock: Clock,
  options: { policy?: WaitingRoomPolicy; defer?: AsyncDefer; waiting?: WaitingRoomOptions } = {},
) {
  const transactions = new AsyncTransactions(stores.unitOfWork, new AsyncLocalStorage(), options.defer);
  const meetings = new MeetingService(
    stores.meetings,
    transactions,
    clock,
    { log: silentLog },
    await openAtStart(stores.meetings),
  );
  const waiting = await WaitingRoomService.open(
    {
      rooms: stores.rooms,
      meetings,
      transactions,
      store: stores.waitingRequests,
      turns: new KeyedQueue(new AsyncLocalStorage(), () => transactions.inside),
      clock,
      policy: options.policy ?? optional,
      log: silentLog,
    },
    options.waiting,
  );
  return { transactions, meetings, waiting };
}
