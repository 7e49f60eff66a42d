/**
 * The asynchronous form of a store port (issue 34 point 2): the same methods, each answering a
 * promise. A store reached over a connection (PostgreSQL) implements it directly; SQLite's
 * synchronous stores are wrapped (store/async-sqlite.ts). Access tokens, accounts and rooms take
 * these; the meetings, the waiting room and the live side still take the synchronous ports, and
 * their move is a change of their services' signatures, not of the stores' meaning, which one
 * contract suite holds equal on both (test/service/store/contract-*).
 */
export type AsyncPort<Port> = {
  readonly [K in keyof Port]: Port[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};
