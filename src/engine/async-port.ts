/**
 * The asynchronous form of a store port (issue 34 point 2): the same methods, each answering a
 * promise. A store reached over a connection (PostgreSQL) implements it directly; SQLite's
 * synchronous stores are wrapped (store/async-sqlite.ts). Access tokens, accounts, rooms, the
 * meeting locks and the sub-groups' timers take these; the meetings, the waiting room, the chat and
 * the statistics still take the synchronous ports inside their (already asynchronous) methods. Their
 * move changes no store's meaning, which one contract suite holds equal on both
 * (test/service/store/contract-*).
 */
export type AsyncPort<Port> = {
  readonly [K in keyof Port]: Port[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};
