/**
 * One socket's messages, handled one at a time in arrival order. A handler that finishes at once
 * lets the next run at once (no turn of the event loop is spent on the common case); one that
 * awaits the store holds the messages behind it until it settled, so a rename and the chat
 * message sent after it reach the room in that order, the chat under the new name.
 *
 * A socket whose messages pile up behind a slow store is cut (`overflow`) rather than let its
 * backlog grow without bound: the rate windows count a message only once it is handled.
 */
export class SocketQueue {
  private readonly waiting: (() => void | Promise<void>)[] = [];
  private busy = false;

  constructor(
    /** A handler's failure (thrown or rejected): logged by the hub, the next message still runs. */
    private readonly failed: (err: unknown) => void,
    private readonly limit: number,
    private readonly overflow: () => void,
  ) {}

  push(handle: () => void | Promise<void>): void {
    if (this.waiting.length >= this.limit) {
      this.waiting.length = 0;
      this.overflow();
      return;
    }
    this.waiting.push(handle);
    if (!this.busy) this.drain();
  }

  private drain(): void {
    for (let handle = this.waiting.shift(); handle; handle = this.waiting.shift()) {
      let pending: void | Promise<void>;
      try {
        pending = handle();
      } catch (err) {
        this.failed(err);
        continue;
      }
      if (pending instanceof Promise) {
        this.busy = true;
        void pending.catch(this.failed).finally(() => {
          this.busy = false;
          this.drain();
        });
        return;
      }
    }
  }
}
