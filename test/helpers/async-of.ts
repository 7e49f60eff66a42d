import type { AsyncPort } from '../../src/engine/async-port.js';

/**
 * A test's synchronous memory store behind an asynchronous port: each call answers a promise (a
 * throw becomes a rejection), read from the store at call time, so a test that replaces one of
 * the store's methods (a full disk) is seen through the port.
 */
export function asyncOf<Port extends object>(store: Port): AsyncPort<Port> {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  }) as unknown as AsyncPort<Port>;
}
