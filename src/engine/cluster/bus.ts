/**
 * What crosses nodes (issue 35): NATS core behind a port, so the engine never imports a client.
 * Raw bytes only: what a node may believe of a message is the signed channel's business
 * (node-channel.ts), which every consumer goes through.
 */
export interface ClusterBus {
  /** Connected now (the client reconnects by itself after a loss). */
  connected(): boolean;
  /**
   * One request to whoever serves `subject`, its one answer; `BusUnanswered` when nobody serves
   * it, nobody answered within `timeoutMs`, or the bus is away.
   */
  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
  /**
   * Answers every request on `subject` with what `handler` resolves to; a handler that rejects
   * answers nothing (the asker's timeout says so).
   */
  serve(subject: string, handler: (data: Uint8Array) => Promise<Uint8Array>): BusSubscription;
  /** At most once, to whoever listens now; nothing is kept for a node that is away. */
  publish(subject: string, data: Uint8Array): void;
  subscribe(subject: string, handler: (data: Uint8Array) => void): BusSubscription;
  /**
   * Resolves once NATS has every subscription made so far: before it, another node's message to
   * a subject just served may find nobody (a node serves its subjects, flushes, then registers).
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface BusSubscription {
  /** No more messages reach the handler. */
  close(): void;
}

/** Why a request got no answer: the asker tries elsewhere or says so, never waits longer. */
export type UnansweredReason = 'no_responders' | 'timeout' | 'disconnected';

export class BusUnanswered extends Error {
  override readonly name = 'BusUnanswered';
  readonly code = 'bus_unanswered';
  constructor(
    readonly subject: string,
    readonly reason: UnansweredReason,
  ) {
    super(`no answer on ${subject}: ${reason.replace('_', ' ')}`);
  }
}
