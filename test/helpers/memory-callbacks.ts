import type { AsyncCompatStore } from '../../src/compat/confapi/async-store.js';
import type { CallbackJob, NewCallbackJob } from '../../src/compat/confapi/model.js';

type CallbackPort = Pick<
  AsyncCompatStore,
  'insertCallback' | 'updateCallback' | 'pendingCallbacks' | 'claimDueCallbacks'
>;

/** The callback part of the compat store's asynchronous port, in memory (also a job left pending by a previous run). */
export class MemoryCallbacks implements CallbackPort {
  readonly jobs = new Map<number, CallbackJob>();
  private next = 1;
  async insertCallback(job: NewCallbackJob): Promise<CallbackJob> {
    const stored: CallbackJob = { ...job, id: this.next++, attempts: 0, doneAt: null, outcome: null, lastError: null };
    this.jobs.set(stored.id, stored);
    return stored;
  }
  async updateCallback(job: CallbackJob): Promise<void> {
    this.jobs.set(job.id, job);
  }
  async pendingCallbacks(): Promise<CallbackJob[]> {
    return [...this.jobs.values()].filter((j) => j.doneAt === null);
  }
  async claimDueCallbacks(now: number, leaseUntil: number, limit: number): Promise<CallbackJob[]> {
    const due = [...this.jobs.values()]
      .filter((j) => j.doneAt === null && j.nextAt <= now)
      .sort((a, b) => a.nextAt - b.nextAt || a.id - b.id)
      .slice(0, limit)
      .map((j) => ({ ...j, nextAt: leaseUntil }));
    for (const j of due) this.jobs.set(j.id, j);
    return due;
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
