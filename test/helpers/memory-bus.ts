// An in-memory ClusterBus (engine/cluster/bus.ts) for the engine's tests: every bus made from one
// network reaches the others' subscriptions, as NATS core does (at most once, to whoever listens
// now, the sender's own subscriptions included). `down` makes a bus as a node cut from NATS.
import { BusUnanswered, type BusSubscription, type ClusterBus } from '../../src/engine/cluster/bus.js';

type Handler = (data: Uint8Array) => void;
type Server = (data: Uint8Array) => Promise<Uint8Array>;

export class MemoryBusNetwork {
  private readonly listeners = new Map<string, Set<Handler>>();
  private readonly servers = new Map<string, Set<Server>>();
  /** Every message published, asked or answered (`<subject> answer`), as sent: what an eavesdropper on NATS sees. */
  readonly wire: { subject: string; data: Uint8Array }[] = [];

  bus(): ClusterBus & { down: boolean } {
    const { listeners, servers: served, wire } = this;
    const subscriptions = new Set<() => void>();
    const add = <T>(map: Map<string, Set<T>>, subject: string, item: T): BusSubscription => {
      let set = map.get(subject);
      if (!set) map.set(subject, (set = new Set()));
      set.add(item);
      const close = () => {
        set.delete(item);
        subscriptions.delete(close);
      };
      subscriptions.add(close);
      return { close };
    };
    const bus = {
      down: false,
      connected: () => !bus.down,
      async request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
        if (bus.down) throw new BusUnanswered(subject, 'disconnected');
        wire.push({ subject, data });
        const servers = [...(served.get(subject) ?? [])];
        if (servers.length === 0) throw new BusUnanswered(subject, 'no_responders');
        return new Promise<Uint8Array>((resolve, reject) => {
          const timer = setTimeout(() => reject(new BusUnanswered(subject, 'timeout')), timeoutMs);
          for (const serve of servers)
            serve(data).then(
              (answer) => {
                wire.push({ subject: `${subject} answer`, data: answer });
                clearTimeout(timer);
                resolve(answer);
              },
              () => undefined,
            );
        });
      },
      serve: (subject: string, handler: Server) => add(served, subject, handler),
      publish(subject: string, data: Uint8Array): void {
        if (bus.down) return;
        wire.push({ subject, data });
        for (const handler of [...(listeners.get(subject) ?? [])]) handler(data);
      },
      subscribe: (subject: string, handler: Handler) => add(listeners, subject, handler),
      flush: async (): Promise<void> => undefined,
      async close(): Promise<void> {
        for (const close of [...subscriptions]) close();
      },
    };
    return bus;
  }
}
