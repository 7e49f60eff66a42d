/**
 * Where the engine reports what it cannot hand back to a caller. The daemon injects its pino
 * logger (which fits this shape); tests pass `silentLog` or a recording fake.
 */
export interface EngineLog {
  error(fields: { readonly err: unknown; readonly event: string }, message: string): void;
}

export const silentLog: EngineLog = { error: () => undefined };

/**
 * The listeners of one engine event (`meeting ended`, `participant left`, ...). A listener runs
 * after the change it hears of is committed, so its failure is not the change's: `emit` runs
 * every listener, logs a failing one under the event's name, and never throws into the caller
 * that changed the state. A listener may await the store (moderator succession's promotion):
 * its rejection is logged the same way.
 */
export class Listeners<Args extends readonly unknown[]> {
  private readonly listeners = new Set<(...args: Args) => unknown>();

  constructor(
    private readonly event: string,
    private readonly log: EngineLog,
  ) {}

  /** Returns the function that unsubscribes this listener. */
  add(listener: (...args: Args) => unknown): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get size(): number {
    return this.listeners.size;
  }

  emit(...args: Args): void {
    // No promise when no listener returns one: an event is told on every knock.
    const pending = this.tell(args);
    if (pending) void Promise.all(pending);
  }

  /**
   * `emit`, resolving once every listener's promise settled (a leave returns once the promotion
   * it caused is on disk). Never rejects.
   */
  async emitSettled(...args: Args): Promise<void> {
    const pending = this.tell(args);
    if (pending) await Promise.all(pending);
  }

  /** Runs every listener; the promises of those that returned one, each logging its own failure. */
  private tell(args: Args): Promise<unknown>[] | null {
    const failed = (err: unknown) => this.log.error({ err, event: this.event }, `a listener of "${this.event}" failed`);
    let pending: Promise<unknown>[] | null = null;
    // A copy: a listener may unsubscribe itself or another while the event is told.
    for (const listener of [...this.listeners]) {
      try {
        const result = listener(...args);
        if (result instanceof Promise) (pending ??= []).push(result.catch(failed));
      } catch (err) {
        failed(err);
      }
    }
    return pending;
  }
}
