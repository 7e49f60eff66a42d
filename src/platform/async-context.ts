import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Asynchronous contexts (the engine's AsyncContext port: which transaction, which room's turn, which
 * unit of work a step belongs to), all carried by ONE AsyncLocalStorage. On Node 20 every
 * AsyncLocalStorage that has run once adds its own work to the creation of every promise of the
 * process, and a knock alone makes a few dozen: one carrier costs that once, not once per context.
 *
 *   const turns = new KeyedQueue(contextSlot());
 *
 * A slot behaves as an AsyncLocalStorage of its own: `run` sets its value for `fn` and everything
 * `fn` starts, and leaves every other slot's value as it was.
 *
 * Where AsyncLocalStorage is built on async_hooks (Node 20 and 22 without the async context
 * frame), an enabled storage runs a hook for EVERY promise and async resource of the process (its
 * HTTP parsing, sockets and log writes too): the knock's profile counted 7.6% more instructions
 * for it alone. So the carrier is enabled only while a run is open (its `fn`, or the promise `fn`
 * answered, not settled yet) and disabled once none is. What that changes: a step started by a run
 * that has already settled (a timer it set, a promise it did not wait for) reads every slot as
 * empty while no run is open, where it read its settled run's value before. Every reader treats a
 * settled run's value as no value already (a turn no longer live, a transaction settled) or must
 * (a unit's store call after its COMMIT takes its turn rather than run "inside" a closed unit).
 */
export interface ContextSlot<T> {
  run<R>(value: T, fn: () => R): R;
  getStore(): T | undefined;
}

/** One slot's value, and the frame it was set in: a short chain (as deep as the runs nested). */
interface Frame {
  readonly slot: number;
  readonly value: unknown;
  readonly parent: Frame | undefined;
}

const carrier = new AsyncLocalStorage<Frame>();
let slots = 0;

/**
 * Whether AsyncLocalStorage runs on async_hooks here: Node 24 (and 22 given the flag) carries
 * contexts in an async context frame instead, where an enabled storage costs nothing per promise.
 */
function hookBased(): boolean {
  const major = Number(process.versions.node.split('.')[0]);
  const flags = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  if (major >= 24) return flags.includes('--no-async-context-frame');
  return !flags.includes('--experimental-async-context-frame');
}

/** Runs open; the carrier is disabled when this comes back to 0 (null: never disabled). */
let open: number | null = hookBased() ? 0 : null;

function closeRun(): void {
  if (open === null) return;
  open -= 1;
  if (open === 0) carrier.disable();
}

function runFrame<R>(frame: Frame, fn: () => R): R {
  if (open === null) return carrier.run(frame, fn);
  open += 1;
  let result: R;
  try {
    // run() enables the carrier again when it was disabled.
    result = carrier.run(frame, fn);
  } catch (error) {
    closeRun();
    throw error;
  }
  if (!(result instanceof Promise)) {
    closeRun();
    return result;
  }
  // The caller gets a promise of its own: a rejection nobody handles is still reported as one.
  return result.then(
    (value: unknown) => {
      closeRun();
      return value;
    },
    (error: unknown) => {
      closeRun();
      throw error;
    },
  ) as R;
}

/** Runs open now (0 when none; null where the carrier is never disabled): for tests. */
export function openRuns(): number | null {
  return open;
}

/** A new context, independent of every other slot. */
export function contextSlot<T>(): ContextSlot<T> {
  const slot = (slots += 1);
  return {
    run: (value, fn) => runFrame({ slot, value, parent: carrier.getStore() }, fn),
    getStore() {
      for (let frame = carrier.getStore(); frame; frame = frame.parent)
        if (frame.slot === slot) return frame.value as T;
      return undefined;
    },
  };
}
