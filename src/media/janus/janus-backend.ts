import { mayAudio, mayVideo, type LockSettings } from '../../engine/live/meeting-locks.js';
import type { MediaBackend, MediaContext, MediaPeer, RelayResult, VideoView } from '../../engine/live/media-port.js';
import { sfuPeers, type ServerMessage } from '../../protocol/live.js';
import { candidateAllowed, withoutRefusedCandidates } from '../candidates.js';
import { malformation, sending } from '../sdp.js';
import { canonicalSignal } from '../signal-data.js';
import { forgetMedia, newMember, streamsOf, type Member } from './janus-member.js';
import type { JanusRooms } from './janus-rooms.js';
import { JanusSession, janusInfo, type JanusEvent, type Jsep } from './janus-session.js';
import {
  subscribedStreams,
  VideoRoomHandle,
  type Publisher,
  type StreamSetting,
  type SubscribedStream,
} from './videoroom.js';

export interface JanusBackendOptions {
  readonly rooms: JanusRooms;
  readonly log: { warn(obj: object, msg: string): void };
  /** Her candidates on private ranges may reach Janus (SERVICE_MEDIA_PRIVATE_PEERS); loopback and link-local never do. */
  readonly privatePeers?: boolean;
}

const relayed: RelayResult = { ok: true };

/**
 * The SFU backend: every meeting is one VideoRoom of the Janus the daemon runs (or is given).
 * Browsers never talk to Janus: the page sends its publisher offer and candidates to the
 * pseudo participant `sfu:publish` and answers the offers that come from `sfu:subscribe`;
 * this class turns them into VideoRoom requests for that participant's two handles. Locks
 * are enforced twice: an offer that plainly sends what is locked is refused like the mesh
 * does, and Janus itself is told not to forward her locked kinds (`moderate`): for every
 * stream its answer takes in, before she has that answer, and when a lock comes on. An offer's
 * text is never trusted to say what she sends (issue 28 point 2): a modified page that sends
 * anyway is heard and seen by nobody. Leaving kicks her handles; the meeting's
 * end destroys the room.
 */
export class JanusBackend implements MediaBackend {
  readonly name = 'janus';
  private readonly members = new Map<string, Member>();
  /** A leaving member's last request (her kick): her next join waits for it, or it would kick the new handle. */
  private readonly leaving = new Map<string, Promise<void>>();
  /** One session per Janus server the members are on. */
  private readonly sessions = new Map<string, Promise<JanusSession>>();
  /** Servers whose session was lost and whose meetings are being moved or made again. */
  private readonly recovering = new Set<string>();
  private closed = false;

  constructor(
    private readonly context: MediaContext,
    private readonly options: JanusBackendOptions,
  ) {}

  kindFor(_meetingId: string): 'janus' {
    return 'janus';
  }

  relaySignal(from: string, to: string, data: unknown): RelayResult {
    const sender = this.context.peer(from);
    const member = this.members.get(from);
    if (!sender || !member || member.gone)
      return { ok: false, code: 'not_member', message: 'the sender is not in this meeting' };
    if (to !== sfuPeers.publish && to !== sfuPeers.subscribe) {
      return {
        ok: false,
        code: 'invalid_signal',
        message: `media of this meeting goes through the server: address ${sfuPeers.publish} or ${sfuPeers.subscribe}`,
      };
    }
    const signal = canonicalSignal(data);
    if (!signal)
      return { ok: false, code: 'invalid_signal', message: 'data must be {description: {type, sdp}} or {candidate}' };
    const peers = { privatePeers: this.options.privatePeers === true };
    if ('candidate' in signal) {
      // A candidate Janus may not check is dropped without a word: her connection does not need it.
      const text = (signal.candidate as { candidate?: string } | null)?.candidate ?? '';
      if (!candidateAllowed(text, peers)) return relayed;
      this.enqueue(member, async () => {
        const handle = to === sfuPeers.publish ? member.publisher : member.subscriber;
        await handle?.trickle(signal.candidate);
      });
      return relayed;
    }
    const { type, sdp: text } = signal.description;
    const wanted = to === sfuPeers.publish ? 'offer' : 'answer';
    if (type !== wanted || text === undefined)
      return { ok: false, code: 'invalid_signal', message: `${to} takes an ${wanted} with its sdp` };
    const wrong = malformation(text);
    if (wrong) return { ok: false, code: 'invalid_signal', message: `the session description holds ${wrong}` };
    const sdp = withoutRefusedCandidates(text, peers);
    if (to === sfuPeers.subscribe) {
      this.enqueue(member, async () => member.subscriber?.start({ type: 'answer', sdp }));
      return relayed;
    }
    const locks = this.context.locks(sender);
    const sends = sending(sdp);
    if (sends.audio && !mayAudio(sender.role, locks))
      return { ok: false, code: 'locked', message: 'microphones are locked: the description may not send audio' };
    if (sends.video && !mayVideo(sender.role, locks))
      return { ok: false, code: 'locked', message: 'cameras are locked: the description may not send video' };
    this.enqueue(member, async () => {
      const publisher = member.publisher;
      if (!publisher) throw new Error('not joined to the room');
      const answer = await publisher.publish({ type: 'offer', sdp });
      member.streams = streamsOf(answer.sdp);
      try {
        await this.enforceLocks(member);
      } catch (err) {
        // A locked stream Janus would not mute must not flow: she is unpublished before she has
        // the answer (without it her connection cannot come up).
        await publisher.unpublish().catch(() => {});
        throw err;
      }
      this.send(member, {
        type: 'signal',
        from: sfuPeers.publish,
        data: { description: { type: 'answer', sdp: answer.sdp } },
      });
    });
    return relayed;
  }

  /**
   * After an offer, before its answer goes out: the streams the locks forbid her (as they are
   * now, for her role now) are muted in Janus whatever the offer said, and those a lock had
   * muted and no longer forbids are forwarded again. A renegotiation may give Janus a stream
   * afresh under an old mid, so a locked one is muted again each time.
   */
  private async enforceLocks(member: Member): Promise<void> {
    const peer = this.context.peer(member.peer.participantId) ?? member.peer;
    const locks = this.context.locks(peer);
    const allowed = { audio: mayAudio(peer.role, locks), video: mayVideo(peer.role, locks) };
    const { meetingId, participantId } = member.peer;
    for (const stream of member.streams) {
      if (allowed[stream.kind]) {
        if (member.muted.delete(stream.mid))
          await this.options.rooms.moderate(meetingId, participantId, stream.mid, false);
        continue;
      }
      await this.options.rooms.moderate(meetingId, participantId, stream.mid, true);
      member.muted.set(stream.mid, stream.kind);
    }
  }

  connected(peer: MediaPeer): void {
    const old = this.members.get(peer.participantId);
    if (old) this.leave(old);
    const queue = this.leaving.get(peer.participantId) ?? Promise.resolve();
    const member = newMember(peer, queue);
    this.members.set(peer.participantId, member);
    this.enqueue(member, () => this.join(member));
  }

  disconnected(peer: MediaPeer): void {
    const member = this.members.get(peer.participantId);
    if (member && member.peer.meetingId === peer.meetingId) this.leave(member);
  }

  /**
   * Her page shows these participants' video: Janus forwards her only theirs (audio stays on for
   * everyone), the large one in the high simulcast layer and the rest in the low one.
   */
  view(peer: MediaPeer, view: VideoView): void {
    const member = this.members.get(peer.participantId);
    if (!member || member.gone || member.peer.meetingId !== peer.meetingId) return;
    member.view = view;
    this.enqueue(member, () => this.applyView(member));
  }

  /** Tells Janus what changed of her video streams' forwarding since it was last told. */
  private async applyView(member: Member): Promise<void> {
    const { view, subscriber } = member;
    if (!view || !subscriber) return;
    const changes: StreamSetting[] = [];
    for (const { mid, feed } of member.video) {
      const setting = { mid, send: view.video.includes(feed), substream: view.large === feed ? 2 : 0 };
      const key = `${mid}/${feed}`;
      const value = `${setting.send}:${setting.substream}`;
      if (member.applied.get(key) === value) continue;
      member.applied.set(key, value);
      changes.push(setting);
    }
    if (changes.length > 0) await subscriber.configureStreams(changes);
  }

  /** Janus listed her subscription's streams: keep its video ones; a mid given to another feed starts afresh. */
  private subscribed(member: Member, streams: readonly SubscribedStream[] | null): void {
    if (!streams) return;
    member.video = streams.filter((s) => s.type === 'video');
    const current = new Set(member.video.map((s) => `${s.mid}/${s.feed}`));
    for (const key of member.applied.keys()) if (!current.has(key)) member.applied.delete(key);
  }

  locksChanged(meetingId: string, locks: LockSettings): void {
    for (const member of this.members.values()) {
      if (member.peer.meetingId !== meetingId || member.gone) continue;
      // Her role now (she may have been promoted since she connected).
      const role = this.context.peer(member.peer.participantId)?.role ?? member.peer.role;
      const audio = mayAudio(role, locks);
      const video = mayVideo(role, locks);
      this.enqueue(member, async () => {
        const streams = new Map<string, 'audio' | 'video'>([
          ...member.muted,
          ...member.streams.map((s) => [s.mid, s.kind] as const),
        ]);
        for (const [mid, kind] of streams) {
          const mute = kind === 'audio' ? !audio : !video;
          await this.options.rooms.moderate(meetingId, member.peer.participantId, mid, mute);
          if (mute) member.muted.set(mid, kind);
          else member.muted.delete(mid);
        }
      });
    }
  }

  meetingEnded(meetingId: string): void {
    for (const member of [...this.members.values()]) if (member.peer.meetingId === meetingId) this.leave(member, false);
    // Destroying the room closes every handle still in it.
    this.options.rooms
      .destroy(meetingId)
      .catch((err: unknown) => this.options.log.warn({ err, meetingId }, 'janus room could not be destroyed'));
  }

  /** Closes the control sessions (the daemon stops). */
  async close(): Promise<void> {
    this.closed = true;
    for (const member of this.members.values()) member.gone = true;
    this.members.clear();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map(async (session) => (await session.catch(() => null))?.destroy()));
    await this.options.rooms.close();
  }

  private async join(member: Member): Promise<void> {
    const spec = await this.options.rooms.ensure(member.peer.meetingId);
    const server = this.options.rooms.serverOf(member.peer.meetingId);
    if (server === undefined) throw new Error('the meeting has no Janus server');
    const session = await this.sessionFor(server);
    // A room taken over from a dead node: its handle of her may still hold her id until Janus
    // times that session out, and Janus refuses a second publisher with one id.
    if (this.options.rooms.wasAdopted(member.peer.meetingId))
      await this.options.rooms.kick(member.peer.meetingId, member.peer.participantId).catch(() => {});
    member.server = server;
    member.publisher = await VideoRoomHandle.attach(session, '', (event) => this.publisherEvent(member, event));
    const { publishers } = await member.publisher.joinPublisher(
      spec.room,
      spec.pin,
      member.peer.participantId,
      member.peer.participantId,
    );
    this.follow(member, publishers);
  }

  private leave(member: Member, kick = true): void {
    member.gone = true;
    if (this.members.get(member.peer.participantId) === member) this.members.delete(member.peer.participantId);
    const id = member.peer.participantId;
    // Joined already: kicked now, not after the work queued for her (a renegotiation may be under
    // way), so that nobody receives her a moment longer (a moderator's removal, a move).
    const kickedNow =
      kick && member.publisher ? this.options.rooms.kick(member.peer.meetingId, id).catch(() => {}) : null;
    const done = member.queue.then(async () => {
      const { publisher, subscriber } = member;
      if (kickedNow) await kickedNow;
      else if (kick && publisher) await this.options.rooms.kick(member.peer.meetingId, id).catch(() => {});
      await publisher?.detach().catch(() => {});
      await subscriber?.detach().catch(() => {});
    });
    member.queue = done;
    this.leaving.set(id, done);
    void done.then(() => {
      if (this.leaving.get(id) === done) this.leaving.delete(id);
    });
  }

  /**
   * What Janus tells her publisher handle: others started publishing (subscribe her to them),
   * or her audio level crossed the room's threshold (audiolevel_event): `talking` and
   * `stopped-talking` about her own id decide whether she speaks (the same events about others,
   * which Janus sends every publisher, are left to their own handles).
   */
  private publisherEvent(member: Member, event: JanusEvent): void {
    const data = event.plugindata?.data;
    if (!data || member.gone) return;
    const talk = data['videoroom'];
    if (talk === 'talking' || talk === 'stopped-talking') {
      if (String(data['id']) === member.peer.participantId)
        this.context.speaking(member.peer.participantId, talk === 'talking');
      return;
    }
    // Someone stopped publishing or left: Janus drops her from the subscription by itself; when
    // she comes back (same participant id, e.g. back from a sub-group) she is a fresh feed.
    for (const key of ['unpublished', 'leaving'] as const) {
      const gone = data[key];
      if (typeof gone === 'string' || typeof gone === 'number') member.feeds.delete(String(gone));
    }
    const list = data['publishers'];
    if (Array.isArray(list))
      this.follow(
        member,
        (list as Publisher[]).map((p) => ({ id: String(p.id), streams: p.streams ?? [] })),
      );
  }

  private follow(member: Member, publishers: readonly Publisher[]): void {
    const fresh = publishers.map((p) => p.id).filter((id) => id !== member.peer.participantId && !member.feeds.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) member.feeds.add(id);
    this.enqueue(member, async () => {
      const spec = this.options.rooms.spec(member.peer.meetingId);
      if (!spec) return;
      let offer: Jsep | null;
      if (member.subscriber) {
        const added = await member.subscriber.addFeeds(fresh);
        offer = added.jsep;
        this.subscribed(member, added.streams);
      } else {
        if (member.server === null) return;
        const session = await this.sessionFor(member.server);
        member.subscriber = await VideoRoomHandle.attach(session, '', (event) => this.subscriberEvent(member, event));
        const made = await member.subscriber.subscribe(spec.room, spec.pin, fresh);
        offer = made.jsep;
        this.subscribed(member, made.streams);
      }
      if (offer)
        this.send(member, {
          type: 'signal',
          from: sfuPeers.subscribe,
          data: { description: { type: 'offer', sdp: offer.sdp } },
        });
      // New feeds come forwarded (Janus's default): those her page does not show stop now.
      await this.applyView(member);
    });
  }

  /** Janus renegotiates a subscription by itself (a feed left): its new offer goes to the page. */
  private subscriberEvent(member: Member, event: JanusEvent): void {
    if (member.gone) return;
    this.subscribed(member, subscribedStreams(event.plugindata?.data ?? {}));
    if (event.jsep?.type !== 'offer') return;
    this.send(member, {
      type: 'signal',
      from: sfuPeers.subscribe,
      data: { description: { type: 'offer', sdp: event.jsep.sdp } },
    });
  }

  private send(member: Member, message: ServerMessage): void {
    if (!member.gone) this.context.deliver(member.peer.participantId, message);
  }

  private enqueue(member: Member, work: () => Promise<void>): void {
    member.queue = member.queue.then(async () => {
      if (member.gone) return;
      try {
        await work();
      } catch (err) {
        this.options.log.warn({ err, participant: member.peer.participantId }, 'janus request failed');
        this.send(member, {
          type: 'error',
          code: 'invalid_signal',
          message: 'the media server refused this; try again',
        });
      }
    });
  }

  private sessionFor(server: string): Promise<JanusSession> {
    let session = this.sessions.get(server);
    if (!session) {
      const made = JanusSession.create(this.options.rooms.pool.endpoint(server), () => this.lost(server));
      session = made;
      this.sessions.set(server, made);
      made.catch(() => {
        if (this.sessions.get(server) === made) this.sessions.delete(server);
      });
    }
    return session;
  }

  /**
   * A server's session is gone (Janus restarted or died). With several servers it is marked dead
   * and each of its meetings moves to a live one (its room made there with the same secret and
   * pin); a meeting nowhere to go, or the one server's, waits until its server answers again and
   * has its room made there anew. Either way every member of those meetings joins anew: her page
   * hears `rollback` from sfu:publish and offers again (her old connections are dead).
   */
  private lost(server: string): void {
    this.sessions.delete(server);
    if (this.recovering.has(server) || this.closed) return;
    this.recovering.add(server);
    const { rooms } = this.options;
    // The address holds no secret (config refuses a user or password in it); the pool of one has none.
    const shown = rooms.pool.several ? { server, meetings: rooms.meetingsOn(server).length } : {};
    this.options.log.warn(shown, 'the Janus session was lost: its meetings move or wait for it');
    void (async () => {
      if (rooms.pool.several)
        await rooms.pool.markDead(server).catch((err: unknown) => {
          this.options.log.warn({ err }, 'the Janus server could not be marked dead');
        });
      const endpoint = rooms.pool.endpoint(server);
      for (;;) {
        if (this.closed) return;
        for (const meetingId of rooms.pool.several ? rooms.meetingsOn(server) : []) {
          const moved = await rooms.move(meetingId, server).catch((err: unknown) => {
            this.options.log.warn({ err, meetingId }, 'the meeting could not move to another Janus server');
            return null;
          });
          if (moved !== null) this.rejoin(meetingId);
        }
        if (rooms.pool.several && rooms.meetingsOn(server).length === 0) break;
        const back = await janusInfo({ ...endpoint, timeoutMs: 1000 }).then(
          () => true,
          () => false,
        );
        if (back) {
          // Also those whose join failed while it was away (their meeting has no room yet).
          const left = new Set(rooms.meetingsOn(server));
          for (const member of this.members.values())
            if (rooms.serverOf(member.peer.meetingId) === undefined) left.add(member.peer.meetingId);
          await rooms.rebuild(server);
          for (const meetingId of left) this.rejoin(meetingId);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 500).unref());
      }
      this.recovering.delete(server);
    })();
  }

  /** Her handles died with her server: she joins her meeting's room anew, and her page offers again. */
  private rejoin(meetingId: string): void {
    if (this.closed) return;
    for (const member of this.members.values()) {
      if (member.peer.meetingId !== meetingId || member.gone) continue;
      forgetMedia(member);
      this.enqueue(member, () => this.join(member));
      this.send(member, { type: 'signal', from: sfuPeers.publish, data: { description: { type: 'rollback' } } });
    }
  }
}
