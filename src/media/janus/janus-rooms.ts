import { singleJanus, type JanusPool } from './janus-pool.js';
import { JanusError, JanusSession, type JanusEndpoint } from './janus-session.js';
import { VideoRoomHandle, type RoomSpec } from './videoroom.js';

export interface JanusRoomsOptions {
  /** The one Janus (the daemon's own, or SERVICE_JANUS_URL); or give `pool`. */
  readonly endpoint?: () => JanusEndpoint;
  /** Several servers, each meeting placed on one (SERVICE_JANUS_URLS). */
  readonly pool?: JanusPool;
  readonly adminKey: string;
  /** The `publishers` cap of every room. */
  readonly publishers: number;
  /** Random URL-safe text for a room's secret and pin. */
  readonly randomText: () => string;
  readonly log: { warn(obj: object, msg: string): void };
}

type Control = Promise<{ session: JanusSession; handle: VideoRoomHandle }>;

/**
 * The VideoRoom rooms of the meetings in progress, each on its meeting's server, made through one
 * control session per server. It remembers each room's secret and pin, so that after Janus
 * restarts (rooms live only in Janus's memory) `rebuild` makes them again, a meeting whose server
 * died is made again on another (`move`), and a kick or a moderate can be signed.
 */
export class JanusRooms {
  readonly pool: JanusPool;
  private readonly rooms = new Map<string, RoomSpec>();
  /** Each meeting's server, once placed. */
  private readonly servers = new Map<string, string>();
  /** Each room's creation, settled once Janus has it (or has refused it). */
  private readonly made = new Map<string, Promise<RoomSpec>>();
  private readonly controls = new Map<string, Control>();
  /** Meetings whose room another node made (it died, its Janus did not): stale members may linger in it. */
  private readonly adopted = new Set<string>();

  constructor(private readonly options: JanusRoomsOptions) {
    const endpoint = options.endpoint;
    if (!options.pool && !endpoint) throw new Error('JanusRooms needs an endpoint or a pool');
    this.pool = options.pool ?? singleJanus(endpoint!);
  }

  /**
   * The room of a meeting, placed and created on first use. Everyone who asks while it is being
   * made waits for the same creation: a meeting's first members join at once, and a join sent
   * before the room exists is refused by Janus.
   */
  ensure(meetingId: string): Promise<RoomSpec> {
    const pending = this.made.get(meetingId);
    if (pending) return pending;
    const spec: RoomSpec = {
      room: `m-${meetingId}`,
      secret: this.options.randomText(),
      pin: this.options.randomText(),
      publishers: this.options.publishers,
    };
    this.rooms.set(meetingId, spec);
    const made = (async () => {
      const server = await this.pool.place(meetingId, null);
      if (server === null) throw new Error('no Janus server is alive to hold this meeting');
      this.servers.set(meetingId, server);
      const keys = await this.pool.roomKeys(meetingId, spec);
      const kept = { ...spec, ...keys };
      if (this.rooms.get(meetingId) === spec) this.rooms.set(meetingId, kept);
      try {
        await (await this.handle(server)).createRoom(kept);
      } catch (err) {
        // 427, the room exists: made by the node that held the meeting before (the keys say so).
        if (!(err instanceof JanusError && err.code === 427 && keys.secret !== spec.secret)) throw err;
        this.adopted.add(meetingId);
      }
      return kept;
    })();
    this.made.set(meetingId, made);
    made.catch(() => {
      if (this.made.get(meetingId) !== made) return;
      this.made.delete(meetingId);
      this.rooms.delete(meetingId);
      this.servers.delete(meetingId);
    });
    return made;
  }

  /** The room was made by a node before this one: a member's id may still be held by that node's handle. */
  wasAdopted(meetingId: string): boolean {
    return this.adopted.has(meetingId);
  }

  spec(meetingId: string): RoomSpec | undefined {
    return this.rooms.get(meetingId);
  }

  /** The server the meeting's room is on (once placed). */
  serverOf(meetingId: string): string | undefined {
    return this.servers.get(meetingId);
  }

  get meetings(): readonly string[] {
    return [...this.rooms.keys()];
  }

  /** The meetings whose rooms are on `server`. */
  meetingsOn(server: string): string[] {
    return [...this.servers].filter(([, on]) => on === server).map(([meetingId]) => meetingId);
  }

  async destroy(meetingId: string): Promise<void> {
    const spec = this.rooms.get(meetingId);
    const made = this.made.get(meetingId);
    // Placed by a node that died, and nobody joined it here: its reservation ends with it all the same.
    if (!spec || !made) return this.pool.release(meetingId);
    this.rooms.delete(meetingId);
    this.made.delete(meetingId);
    // A room still being made is destroyed once it exists, not before (Janus would not know it yet).
    const exists = await made.then(
      () => true,
      () => false,
    );
    const server = this.servers.get(meetingId);
    this.servers.delete(meetingId);
    this.adopted.delete(meetingId);
    if (!exists || server === undefined) return;
    try {
      await (await this.handle(server)).destroyRoom(spec.room, spec.secret);
    } finally {
      await this.pool.release(meetingId);
    }
  }

  async exists(meetingId: string): Promise<boolean> {
    const spec = this.rooms.get(meetingId);
    const server = this.servers.get(meetingId);
    return spec && server !== undefined ? (await this.handle(server)).exists(spec.room) : false;
  }

  async kick(meetingId: string, participantId: string): Promise<void> {
    const spec = this.rooms.get(meetingId);
    const server = this.servers.get(meetingId);
    if (spec && server !== undefined) await (await this.handle(server)).kick(spec.room, spec.secret, participantId);
  }

  /** Stops (mute) or resumes forwarding one stream of a publisher, for everyone. */
  async moderate(meetingId: string, participantId: string, mid: string, mute: boolean): Promise<void> {
    const spec = this.rooms.get(meetingId);
    const server = this.servers.get(meetingId);
    if (spec && server !== undefined)
      await (await this.handle(server)).moderate(spec.room, spec.secret, participantId, mid, mute);
  }

  /** `server` came back empty: a new control session, and every room of it again with its old secret and pin. */
  async rebuild(server: string): Promise<void> {
    this.controls.delete(server);
    const handle = await this.handle(server);
    for (const meetingId of this.meetingsOn(server)) {
      const spec = this.rooms.get(meetingId);
      if (!spec) continue;
      try {
        await handle.createRoom(spec);
      } catch (err) {
        this.options.log.warn({ err, meetingId }, 'janus room could not be made again');
      }
    }
  }

  /**
   * The meeting's server died: placed on another live one (its load moving with it), and its room
   * made there with the same secret and pin. Answers the new server, or null when none is left.
   */
  async move(meetingId: string, from: string): Promise<string | null> {
    const spec = this.rooms.get(meetingId);
    if (!spec || this.servers.get(meetingId) !== from) return null;
    const to = await this.pool.place(meetingId, from);
    if (to === null) return null;
    await (await this.handle(to)).createRoom(spec);
    // Ended while it moved: the room just made goes too.
    if (this.rooms.get(meetingId) !== spec) {
      await (await this.handle(to)).destroyRoom(spec.room, spec.secret).catch(() => {});
      return null;
    }
    this.servers.set(meetingId, to);
    return to;
  }

  async close(): Promise<void> {
    const controls = [...this.controls.values()];
    this.controls.clear();
    await Promise.all(controls.map(async (control) => (await control.catch(() => null))?.session.destroy()));
  }

  private async handle(server: string): Promise<VideoRoomHandle> {
    let control = this.controls.get(server);
    if (!control) {
      const made: Control = (async () => {
        const session = await JanusSession.create(this.pool.endpoint(server), () => {
          // The next call opens a new session (Janus restarted or timed this one out).
          if (this.controls.get(server) === made) this.controls.delete(server);
        });
        return { session, handle: await VideoRoomHandle.attach(session, this.options.adminKey) };
      })();
      control = made;
      this.controls.set(server, made);
    }
    try {
      return (await control).handle;
    } catch (err) {
      if (this.controls.get(server) === control) this.controls.delete(server);
      throw err;
    }
  }
}
