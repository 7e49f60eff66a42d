import { JanusSession, type JanusEndpoint } from './janus-session.js';
import { VideoRoomHandle, type RoomSpec } from './videoroom.js';

export interface JanusRoomsOptions {
  readonly endpoint: () => JanusEndpoint;
  readonly adminKey: string;
  /** The `publishers` cap of every room. */
  readonly publishers: number;
  /** Random URL-safe text for a room's secret and pin. */
  readonly randomText: () => string;
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * The VideoRoom rooms of the meetings in progress, made through one control session of the
 * daemon. It remembers each room's secret and pin, so that after Janus restarts (rooms live
 * only in Janus's memory) `rebuild` makes them again, and a kick or a moderate can be signed.
 */
export class JanusRooms {
  private readonly rooms = new Map<string, RoomSpec>();
  /** Each room's creation, settled once Janus has it (or has refused it). */
  private readonly made = new Map<string, Promise<RoomSpec>>();
  private control: Promise<{ session: JanusSession; handle: VideoRoomHandle }> | null = null;

  constructor(private readonly options: JanusRoomsOptions) {}

  /**
   * The room of a meeting, created on first use. Everyone who asks while it is being made
   * waits for the same creation: a meeting's first members join at once, and a join sent
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
      await (await this.handle()).createRoom(spec);
      return spec;
    })();
    this.made.set(meetingId, made);
    made.catch(() => {
      if (this.made.get(meetingId) !== made) return;
      this.made.delete(meetingId);
      this.rooms.delete(meetingId);
    });
    return made;
  }

  spec(meetingId: string): RoomSpec | undefined {
    return this.rooms.get(meetingId);
  }

  get meetings(): readonly string[] {
    return [...this.rooms.keys()];
  }

  async destroy(meetingId: string): Promise<void> {
    const spec = this.rooms.get(meetingId);
    const made = this.made.get(meetingId);
    if (!spec || !made) return;
    this.rooms.delete(meetingId);
    this.made.delete(meetingId);
    // A room still being made is destroyed once it exists, not before (Janus would not know it yet).
    if (
      !(await made.then(
        () => true,
        () => false,
      ))
    )
      return;
    await (await this.handle()).destroyRoom(spec.room, spec.secret);
  }

  async exists(meetingId: string): Promise<boolean> {
    const spec = this.rooms.get(meetingId);
    return spec ? (await this.handle()).exists(spec.room) : false;
  }

  async kick(meetingId: string, participantId: string): Promise<void> {
    const spec = this.rooms.get(meetingId);
    if (spec) await (await this.handle()).kick(spec.room, spec.secret, participantId);
  }

  /** Stops (mute) or resumes forwarding one stream of a publisher, for everyone. */
  async moderate(meetingId: string, participantId: string, mid: string, mute: boolean): Promise<void> {
    const spec = this.rooms.get(meetingId);
    if (spec) await (await this.handle()).moderate(spec.room, spec.secret, participantId, mid, mute);
  }

  /** Janus came back empty: a new control session, and every room again with its old secret and pin. */
  async rebuild(): Promise<void> {
    this.control = null;
    const handle = await this.handle();
    for (const [meetingId, spec] of this.rooms) {
      try {
        await handle.createRoom(spec);
      } catch (err) {
        this.options.log.warn({ err, meetingId }, 'janus room could not be made again');
      }
    }
  }

  async close(): Promise<void> {
    const control = this.control;
    this.control = null;
    if (control) await (await control.catch(() => null))?.session.destroy();
  }

  private async handle(): Promise<VideoRoomHandle> {
    this.control ??= (async () => {
      const session = await JanusSession.create(this.options.endpoint(), () => {
        // The next call opens a new session (Janus restarted or timed this one out).
        if (this.control === control) this.control = null;
      });
      return { session, handle: await VideoRoomHandle.attach(session, this.options.adminKey) };
    })();
    const control = this.control;
    try {
      return (await control).handle;
    } catch (err) {
      if (this.control === control) this.control = null;
      throw err;
    }
  }
}
