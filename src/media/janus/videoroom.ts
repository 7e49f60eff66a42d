import type { JanusEvent, JanusSession, Jsep } from './janus-session.js';

export const videoRoomPlugin = 'janus.plugin.videoroom';

/** A room as the daemon creates it: private, its own secret (manage) and pin (join). */
export interface RoomSpec {
  readonly room: string;
  readonly secret: string;
  readonly pin: string;
  /** At most this many publishers at once. */
  readonly publishers: number;
  readonly description?: string;
}

/** One published stream of a publisher, as Janus lists it. */
export interface PublishedStream {
  readonly type: 'audio' | 'video' | 'data';
  readonly mid: string;
}

export interface Publisher {
  readonly id: string;
  readonly display?: string;
  readonly streams: readonly PublishedStream[];
}

/** One stream of a subscription: its mid on the subscriber's connection, whose feed it carries. */
export interface SubscribedStream {
  readonly mid: string;
  readonly feed: string;
  readonly type: string;
}

/** What Janus answers a subscription request: its offer (when the streams changed) and the streams it now holds. */
export interface Subscription {
  readonly jsep: Jsep | null;
  /** Null when the answer does not list them. */
  readonly streams: SubscribedStream[] | null;
}

/** How one stream of a subscription is forwarded: at all, and which simulcast layer (0 lowest, 2 highest). */
export interface StreamSetting {
  readonly mid: string;
  readonly send: boolean;
  readonly substream: number;
}

/** The `streams` list of a subscriber's event (attached, updated), active ones with a feed only. */
export function subscribedStreams(data: Record<string, unknown>): SubscribedStream[] | null {
  const list = data['streams'];
  if (!Array.isArray(list)) return null;
  const text = (value: unknown): string | null =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
  return (list as { mid?: unknown; feed_id?: unknown; type?: unknown; active?: unknown }[]).flatMap((s) => {
    const mid = text(s.mid);
    const feed = text(s.feed_id);
    return s.active !== false && mid !== null && feed !== null ? [{ mid, feed, type: text(s.type) ?? '' }] : [];
  });
}

const subscription = (event: JanusEvent): Subscription => ({
  jsep: event.jsep ?? null,
  streams: subscribedStreams(event.plugindata?.data ?? {}),
});

function publishersOf(data: Record<string, unknown>): Publisher[] {
  const list = data['publishers'];
  return Array.isArray(list)
    ? (list as Publisher[]).map((p) => ({
        id: String(p.id),
        ...(p.display ? { display: p.display } : {}),
        streams: p.streams ?? [],
      }))
    : [];
}

/**
 * A handle attached to the VideoRoom plugin, with the plugin's requests typed. The manage
 * requests (create, destroy, kick, moderate) may go through any handle; a publisher or a
 * subscriber is one handle each.
 */
export class VideoRoomHandle {
  private constructor(
    private readonly session: JanusSession,
    readonly id: number,
    private readonly adminKey: string,
  ) {}

  static async attach(
    session: JanusSession,
    adminKey: string,
    onEvent: (event: JanusEvent) => void = () => {},
  ): Promise<VideoRoomHandle> {
    return new VideoRoomHandle(session, await session.attach(videoRoomPlugin, onEvent), adminKey);
  }

  async createRoom(spec: RoomSpec): Promise<void> {
    await this.session.sync(this.id, {
      request: 'create',
      admin_key: this.adminKey,
      room: spec.room,
      description: spec.description ?? spec.room,
      secret: spec.secret,
      pin: spec.pin,
      is_private: true,
      publishers: spec.publishers,
      permanent: false,
      // Audio levels let the server say who speaks (issue 18 point 6): averaged over 50 packets
      // (1 s of Opus), louder than -40 dBov. Janus's default (100 packets, -25 dBov) reacts in
      // 2 s and only to loud voices; below -40 dBov is room noise.
      audiolevel_event: true,
      audio_active_packets: 50,
      audio_level_average: 40,
      notify_joining: false,
    });
  }

  async destroyRoom(room: string, secret: string): Promise<void> {
    await this.session.sync(this.id, { request: 'destroy', room, secret, permanent: false });
  }

  async exists(room: string): Promise<boolean> {
    const data = await this.session.sync(this.id, { request: 'exists', room });
    return data['exists'] === true;
  }

  async participants(room: string): Promise<{ id: string; publisher: boolean }[]> {
    const data = await this.session.sync(this.id, { request: 'listparticipants', room });
    const list = (data['participants'] as { id: unknown; publisher?: boolean }[] | undefined) ?? [];
    return list.map((p) => ({ id: String(p.id), publisher: p.publisher === true }));
  }

  /** Joins as the publisher `id`; answers the publishers already in the room. */
  async joinPublisher(room: string, pin: string, id: string, display: string): Promise<{ publishers: Publisher[] }> {
    const event = await this.session.async(this.id, { request: 'join', ptype: 'publisher', room, pin, id, display });
    return { publishers: publishersOf(event.plugindata?.data ?? {}) };
  }

  /** Publishes (or renegotiates) with the browser's offer; answers Janus's SDP answer. */
  async publish(offer: Jsep): Promise<Jsep> {
    const event = await this.session.async(this.id, { request: 'configure' }, offer);
    if (!event.jsep) throw new Error('Janus answered the publish without a session description');
    return event.jsep;
  }

  async unpublish(): Promise<void> {
    await this.session.async(this.id, { request: 'unpublish' });
  }

  /** Joins as a subscriber to the given publishers' streams; answers Janus's SDP offer. */
  async subscribe(
    room: string,
    pin: string,
    feeds: readonly string[],
  ): Promise<Subscription & { readonly jsep: Jsep }> {
    const event = await this.session.async(this.id, {
      request: 'join',
      ptype: 'subscriber',
      room,
      pin,
      streams: feeds.map((feed) => ({ feed })),
      // Each stream's msid names its publisher, so the page can put it on her tile.
      use_msid: true,
    });
    if (!event.jsep) throw new Error('Janus answered the subscription without a session description');
    return { ...subscription(event), jsep: event.jsep };
  }

  /** Adds feeds to an existing subscription; Janus renegotiates (a new offer, if any changed). */
  async addFeeds(feeds: readonly string[]): Promise<Subscription> {
    return subscription(
      await this.session.async(this.id, { request: 'subscribe', streams: feeds.map((feed) => ({ feed })) }),
    );
  }

  /**
   * Forwards (or stops forwarding) streams of this subscription, and picks their simulcast
   * layer: no renegotiation, the m-line stays and its RTP stops. Janus ignores the layer of a
   * stream its publisher does not simulcast.
   */
  async configureStreams(settings: readonly StreamSetting[]): Promise<void> {
    await this.session.async(this.id, {
      request: 'configure',
      streams: settings.map((s) => ({ mid: s.mid, send: s.send, substream: s.substream })),
    });
  }

  /** The subscriber's answer to Janus's offer. */
  async start(answer: Jsep): Promise<void> {
    await this.session.async(this.id, { request: 'start' }, answer);
  }

  async trickle(candidate: unknown): Promise<void> {
    await this.session.trickle(this.id, candidate);
  }

  /** Stops (or resumes) forwarding one published stream of a publisher to everyone: enforced by Janus. */
  async moderate(room: string, secret: string, id: string, mid: string, mute: boolean): Promise<void> {
    await this.session.sync(this.id, { request: 'moderate', room, secret, id, mid, mute });
  }

  async kick(room: string, secret: string, id: string): Promise<void> {
    await this.session.sync(this.id, { request: 'kick', room, secret, id });
  }

  async detach(): Promise<void> {
    await this.session.detach(this.id);
  }
}
