import { AsyncLocalStorage } from 'node:async_hooks';
import type { UnitOfWork } from '../../src/engine/unit-of-work.js';
import type { MemoryStore } from './memory-store.js';

/**
 * The memory store's asynchronous unit of work, as SQLite's behind the asynchronous ports
 * (store/async-sqlite.ts): units take turns, a unit inside another is part of it, and a failed
 * outermost unit (or a set `commitError`) puts every table back as it was when the unit began,
 * across all the awaits it made. `commits` counts the outermost units committed, as `run` does.
 */
export class MemoryUnitOfWork implements UnitOfWork<'async'> {
  private readonly inside = new AsyncLocalStorage<true>();
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: MemoryStore) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.inside.getStore()) return work();
    const result = this.turn.then(() => this.outermost(work));
    this.turn = result.catch(() => undefined);
    return result;
  }

  private async outermost<T>(work: () => Promise<T>): Promise<T> {
    const before = this.store.snapshot();
    try {
      const value = await this.inside.run(true, work);
      if (this.store.commitError) throw this.store.commitError;
      this.store.commits++;
      return value;
    } catch (error) {
      this.store.restore(before);
      throw error;
    }
  }
}
