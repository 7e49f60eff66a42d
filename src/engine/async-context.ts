/**
 * A value that follows an asynchronous call through its awaits and the callbacks it starts, as
 * Node's AsyncLocalStorage does (the daemon passes a slot of its one AsyncLocalStorage,
 * platform/async-context.ts; tests may pass `new AsyncLocalStorage()`). The
 * engine takes it as a port, like the clock: it keeps to plain TypeScript and imports no Node
 * module for it. It tells which transaction (AsyncTransactions) or which room's turn (KeyedQueue)
 * an asynchronous step belongs to when several run at once.
 */
export interface AsyncContext<T> {
  run<R>(value: T, fn: () => R): R;
  getStore(): T | undefined;
}
