/**
 * What crosses nodes (issue 35): NATS core behind a port, so the engine never imports a client.
 * Stage 1 only connects and reports its state; the stages that forward requests and relay live
 * messages add publish, subscribe and request here, with their tests.
 */
export interface ClusterBus {
  /** Connected now (the client reconnects by itself after a loss). */
  connected(): boolean;
  close(): Promise<void>;
}
