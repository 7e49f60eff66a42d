import type { MediaPeer, VideoView } from '../../engine/live/media-port.js';
import { mediaSections } from '../sdp.js';
import type { SubscribedStream, VideoRoomHandle } from './videoroom.js';

/** One admitted participant on the SFU: her publisher handle, her subscriber handle, what she sends. */
export interface Member {
  readonly peer: MediaPeer;
  /** The Janus server her handles are on (her meeting's, when she joined). */
  server: string | null;
  publisher: VideoRoomHandle | null;
  subscriber: VideoRoomHandle | null;
  readonly feeds: Set<string>;
  /** The m-lines Janus took in from her last accepted offer: what a lock stops forwarding. */
  streams: { readonly kind: 'audio' | 'video'; readonly mid: string }[];
  /**
   * The streams a lock told Janus to stop forwarding (mid → kind). A mute outlives the offer
   * that carried its stream (a locked page re-offers without it), so the release must find it here.
   */
  readonly muted: Map<string, 'audio' | 'video'>;
  /** The video her page shows (`view`); null until it first says: then she gets every video. */
  view: VideoView | null;
  /** The video streams of her subscription (the mids on her subscriber connection, by feed). */
  video: SubscribedStream[];
  /** What Janus was last told of each of those streams (`mid/feed` → `send:substream`). */
  readonly applied: Map<string, string>;
  /** Her Janus requests, one after the other (an offer before its candidates, a join before either). */
  queue: Promise<void>;
  gone: boolean;
}

/** Her queue starts after `queue`: a leaving member's kick, which would otherwise kick the new handle. */
export function newMember(peer: MediaPeer, queue: Promise<void>): Member {
  return {
    peer,
    server: null,
    publisher: null,
    subscriber: null,
    feeds: new Set(),
    streams: [],
    muted: new Map(),
    view: null,
    video: [],
    applied: new Map(),
    queue,
    gone: false,
  };
}

/** After a lost session her handles, feeds and mutes died with it: she joins anew from nothing. */
export function forgetMedia(member: Member): void {
  member.server = null;
  member.publisher = null;
  member.subscriber = null;
  member.feeds.clear();
  member.streams = [];
  member.muted.clear();
  member.video = [];
  member.applied.clear();
}

/**
 * The audio and video m-lines Janus takes in, read from Janus's own answer (it writes each
 * section's direction), never from the offer: whatever an offer's text says about sending,
 * what Janus receives is what a lock must stop.
 */
export function streamsOf(answer: string): Member['streams'] {
  return mediaSections(answer).flatMap((section) =>
    (section.kind === 'audio' || section.kind === 'video') && section.receives && section.mid !== null
      ? [{ kind: section.kind, mid: section.mid }]
      : [],
  );
}
