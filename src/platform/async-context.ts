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

/** A new context, independent of every other slot. */
export function contextSlot<T>(): ContextSlot<T> {
  const slot = (slots += 1);
  return {
    run: (value, fn) => carrier.run({ slot, value, parent: carrier.getStore() }, fn),
    getStore() {
      for (let frame = carrier.getStore(); frame; frame = frame.parent)
        if (frame.slot === slot) return frame.value as T;
      return undefined;
    },
  };
}
