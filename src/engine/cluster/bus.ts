/**
 * What crosses nodes (issue 35): NATS core behind a port, so the engine never imports a client.
 * Subjects are plain strings; payloads are bytes the caller encodes. Stage 1 only connects and
 * reports its state; the later stages forward requests and relay live messages over it.
 */
export interface ClusterBus {
  publish(subject: string, payload: Uint8Array): void;
  /** Calls `handler` for each message on `subject` until the returned function is called. */
  subscribe(
    subject: string,
    handler: (payload: Uint8Array, reply: ((answer: Uint8Array) => void) | null) => void,
  ): () => void;
  /** One answer within `timeoutMs`, or a rejection. */
  request(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
  /** Connected now (the client reconnects by itself after a loss). */
  connected(): boolean;
  close(): Promise<void>;
}
