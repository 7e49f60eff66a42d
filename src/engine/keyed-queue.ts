import type { AsyncContext } from './async-context.js';

/**
 * One operation at a time per key, in arrival order (issue 34 point 2). In the synchronous engine
 * a room's transitions could never interleave; once they await the store they can, so every
 * transition of a room runs through the room's turn: two moderators admitting the same person at
 * once admit her once, and the second is told she is not waiting any more. Keys are independent:
 * the transitions of different rooms still run at once (PostgreSQL commits them in parallel).
 *
 *   const turns = new KeyedQueue(contextSlot());
 *   await turns.run(roomId, () => admitNow(roomId, requestId));
 *
 * An operation that asks for a key its own context already holds (an admission inside "admit
 * all") runs at once: waiting for itself would never end. A failing operation rejects its caller
 * only; the next one in line runs as usual. Given `inTransaction`, a key asked for inside a
 * transaction (and not held already) is refused at once: on SQLite's one connection the unit
 * would wait for a turn whose holder may be waiting for the unit, and neither would ever end.
 */
/**
 * The key one operation holds, and those of the live operation it ran in when it started (a
 * chain, not a copied Set: a knock takes a turn); no longer held once it settled (a timer it
 * started runs in line).
 */
interface Turn {
  readonly key: string;
  readonly outer: Turn | null;
  live: boolean;
}

function holds(turn: Turn | null, key: string): boolean {
  for (let at = turn; at; at = at.outer) if (at.key === key) return true;
  return false;
}

const settled = Promise.resolve();

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * @param held Which keys an asynchronous step's operation holds: a context given to this queue alone
   *   (`contextSlot()` in the daemon, `new AsyncLocalStorage()` in a test).
   * @param inTransaction Whether the caller runs inside a transaction (AsyncTransactions.inside).
   */
  constructor(
    private readonly held: AsyncContext<Turn>,
    private readonly inTransaction?: () => boolean,
  ) {}

  /** Keys with an operation running or waiting. */
  get size(): number {
    return this.tails.size;
  }

  run<T>(key: string, operation: () => Promise<T> | T): Promise<T> {
    return this.take(key, operation, true);
  }

  /**
   * `run` for an operation that asks for no turn of this queue, nor does anything it starts
   * before it settled (a knock: its screening, its queued write or its entry). Its turn is not
   * put in the context: on Node 20 an AsyncLocalStorage that ran once makes every promise of the
   * process run async_hooks' hooks, and the knock's path runs none (issue 34 point 7). A turn
   * it asked for anyway would wait behind its own.
   */
  runAlone<T>(key: string, operation: () => Promise<T> | T): Promise<T> {
    return this.take(key, operation, false);
  }

  private take<T>(key: string, operation: () => Promise<T> | T, told: boolean): Promise<T> {
    const current = this.held.getStore();
    const outer = current?.live ? current : null;
    if (holds(outer, key)) return settled.then(operation);
    if (this.inTransaction?.())
      return Promise.reject(new Error(`the turn of ${key} was asked for inside a transaction: take it before`));
    const turn: Turn = { key, outer, live: true };
    const start = told ? () => this.held.run(turn, operation) : operation;
    // A free key runs the operation now, in the caller's turn of the loop; a busy one after the
    // last in line. One promise for the tail besides the operation's own when it is free.
    const previous = this.tails.get(key);
    const result = previous ? previous.then(start) : this.now(start);
    const done = () => {
      turn.live = false;
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    const tail: Promise<void> = result.then(done, done);
    this.tails.set(key, tail);
    return result;
  }

  private now<T>(start: () => Promise<T> | T): Promise<T> {
    try {
      const value = start();
      return value instanceof Promise ? value : Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
