import type { CallbackJob, CompatStore, NewCallbackJob } from '../../src/compat/confapi/model.js';

/** The callback part of the compat store, in memory (also a job left pending by a previous run). */
export class MemoryCallbacks implements Pick<CompatStore, 'insertCallback' | 'updateCallback' | 'pendingCallbacks'> {
  readonly jobs = new Map<number, CallbackJob>();
  private next = 1;
  insertCallback(job: NewCallbackJob): CallbackJob {
    const stored: CallbackJob = { ...job, id: this.next++, attempts: 0, doneAt: null, outcome: null, lastError: null };
    this.jobs.set(stored.id, stored);
    return stored;
  }
  updateCallback(job: CallbackJob): void {
    this.jobs.set(job.id, job);
  }
  pendingCallbacks(): CallbackJob[] {
    return [...this.jobs.values()].filter((j) => j.doneAt === null);
  }
}

/** The job once the queue is done with it (delivered or given up). */
export async function settled(store: MemoryCallbacks, id: number, withinMs = 5000): Promise<CallbackJob> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    const job = store.jobs.get(id)!;
    if (job.doneAt !== null) return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`callback ${id} not settled in ${withinMs} ms`);
}
