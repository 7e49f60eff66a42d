/**
 * The meeting's small signals, as pure functions (no DOM, no timers, no words; `now` is passed
 * in), tested in Node (test/unit/web/state/signals.test.ts): the initials of a camera-off tile,
 * who is speaking from the audio the page receives, "you are muted" when she talks while muted,
 * the chat's unread count, and the connection's quality from the page's own WebRTC statistics.
 */

/** One entry of an RTCStatsReport, as a plain record (what `report.forEach` yields). */
export type Stat = Readonly<Record<string, unknown>>;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const letterOrDigit = /^[\p{L}\p{N}]/u;

/** The first letter (a whole grapheme: a base and its accents) of a word; none for a word of only marks. */
function firstLetter(word: string): string {
  for (const { segment } of segmenter.segment(word)) if (letterOrDigit.test(segment)) return segment;
  return '';
}

/**
 * One or two letters for a camera-off tile: the first letter of her first and of her last word
 * ("Ada Lovelace" → "AL", "Özlem" → "Ö", "ǆenan đurić" → "ǄĐ"), upper case where the script has
 * cases; '' when the name has no letter at all (the tile then shows only her name).
 */
export function initialsOf(name: string): string {
  const words = name
    .normalize('NFC')
    .split(/[\s\p{Z}]+/u)
    .map(firstLetter)
    .filter((letter) => letter !== '');
  if (words.length === 0) return '';
  const chosen = words.length === 1 ? [words[0]!] : [words[0]!, words[words.length - 1]!];
  return chosen.join('').toLocaleUpperCase();
}

/**
 * The picture a camera-off tile shows instead of her initials: her `avatar_url` when it is an
 * http(s) URL that has not failed to load on this page; null (the initials) otherwise.
 */
export function pictureOf(avatarUrl: string | undefined, failed: ReadonlySet<string>): string | null {
  if (avatarUrl === undefined || failed.has(avatarUrl)) return null;
  try {
    const { protocol } = new URL(avatarUrl);
    return protocol === 'https:' || protocol === 'http:' ? avatarUrl : null;
  } catch {
    return null;
  }
}

/** What the page's peer connections have counted so far, read from their statistics. */
export interface Reading {
  /** Per received audio track (its `trackIdentifier`): energy and seconds of audio so far. */
  readonly audio: ReadonlyMap<string, { readonly energy: number; readonly seconds: number }>;
  /** Packets received and lost on every inbound stream. */
  readonly received: number;
  readonly lost: number;
  /** The worst loss the other ends report for what she sends (0 to 1), if any reported it. */
  readonly remoteLoss: number | null;
  /** The worst round-trip time of the connections in use, in milliseconds. */
  readonly rttMs: number | null;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const worst = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

/** Sums the statistics of every peer connection the page has (mesh: one per person; Janus: two). */
export function readingOf(stats: readonly Stat[]): Reading {
  const audio = new Map<string, { energy: number; seconds: number }>();
  let received = 0;
  let lost = 0;
  let remoteLoss: number | null = null;
  let rttMs: number | null = null;
  // The pairs in use: those a transport names as selected (either side), else those nominated.
  const selected = new Set(stats.filter((s) => s.type === 'transport').map((s) => s.selectedCandidatePairId));
  const inUse = (s: Stat) => s.state === 'succeeded' && (selected.has(s.id) || s.nominated === true);
  for (const s of stats) {
    if (s.type === 'inbound-rtp') {
      received += num(s.packetsReceived) ?? 0;
      lost += Math.max(0, num(s.packetsLost) ?? 0);
      const energy = num(s.totalAudioEnergy);
      const seconds = num(s.totalSamplesDuration);
      if (s.kind === 'audio' && typeof s.trackIdentifier === 'string' && energy !== null && seconds !== null)
        audio.set(s.trackIdentifier, { energy, seconds });
    } else if (s.type === 'remote-inbound-rtp') {
      remoteLoss = worst(remoteLoss, num(s.fractionLost));
      const rtt = num(s.roundTripTime);
      if (rtt !== null) rttMs = worst(rttMs, rtt * 1000);
    } else if (s.type === 'candidate-pair' && inUse(s)) {
      const rtt = num(s.currentRoundTripTime);
      if (rtt !== null) rttMs = worst(rttMs, rtt * 1000);
    }
  }
  return { audio, received, lost, remoteLoss, rttMs };
}

/**
 * The level (0 to 1, root mean square as WebRTC's audioLevel) of each received audio track
 * between two readings: the energy it gained over the seconds it played.
 */
export function levelsBetween(before: Reading | null, after: Reading): Map<string, number> {
  const levels = new Map<string, number>();
  for (const [track, now] of after.audio) {
    const then = before?.audio.get(track);
    if (!then) continue;
    const seconds = now.seconds - then.seconds;
    levels.set(track, seconds > 0 ? Math.sqrt(Math.max(0, now.energy - then.energy) / seconds) : 0);
  }
  return levels;
}

/** Fewer packets than this between two readings say nothing about loss. */
const fewPackets = 20;

/** Round trip and loss between two readings: what the quality is judged on. */
export interface LinkSample {
  readonly rttMs: number | null;
  /** Share of packets lost, 0 to 1. */
  readonly loss: number | null;
}

export function linkBetween(before: Reading | null, after: Reading): LinkSample {
  let loss: number | null = null;
  if (before) {
    const lost = Math.max(0, after.lost - before.lost);
    const total = Math.max(0, after.received - before.received) + lost;
    if (total >= fewPackets) loss = lost / total;
  }
  return { rttMs: after.rttMs, loss: worst(loss, after.remoteLoss) };
}

export type Quality = 'good' | 'fair' | 'poor';

/** Thresholds of a call people can hold: beyond 150 ms or 2 % loss it is noticeable, beyond 400 ms or 8 % it breaks up. */
export const qualityLimits = {
  fair: { rttMs: 150, loss: 0.02 },
  poor: { rttMs: 400, loss: 0.08 },
} as const;

/** Good, fair or poor; null while nothing is measured (alone in the meeting, or the first seconds). */
export function qualityOf(sample: LinkSample): Quality | null {
  const { rttMs, loss } = sample;
  if (rttMs === null && loss === null) return null;
  const over = (limit: { rttMs: number; loss: number }) =>
    (rttMs !== null && rttMs > limit.rttMs) || (loss !== null && loss > limit.loss);
  if (over(qualityLimits.poor)) return 'poor';
  if (over(qualityLimits.fair)) return 'fair';
  return 'good';
}

/** A received voice's level (WebRTC's audioLevel scale) above which she counts as speaking. */
export const speakingLevel = 0.02;
/** Speaking ends only after this much quiet: the pauses between words do not blink the outline. */
export const speakingHoldMs = 600;

export interface Voice {
  readonly speaking: boolean;
  /** When her level was last above the threshold. */
  readonly loudAt: number | null;
}

export const silent: Voice = { speaking: false, loudAt: null };

/** One measurement of someone's level: speaking at once when loud, no longer after a quiet hold. */
export function voiceAfter(voice: Voice, level: number, now: number): Voice {
  if (level >= speakingLevel) return { speaking: true, loudAt: now };
  if (voice.speaking && voice.loudAt !== null && now - voice.loudAt < speakingHoldMs) return voice;
  return voice.speaking ? { speaking: false, loudAt: voice.loudAt } : voice;
}

/** She talks while muted: "You are muted" after this much of her voice, and not again before the pause below. */
export const mutedTalkMs = 700;
export const mutedTellAgainMs = 20_000;
/** A gap in her voice shorter than this is the same talk. */
const talkGapMs = 400;

export interface MutedTalk {
  /** Since when she has been talking while muted (null: she is not). */
  readonly since: number | null;
  readonly loudAt: number | null;
  readonly toldAt: number | null;
}

export const notTalking: MutedTalk = { since: null, loudAt: null, toldAt: null };

/**
 * One measurement of her own microphone (analysed before the mute, so it hears her while muted):
 * `tell` is true once she has talked for a moment while muted, then not again for a while.
 */
export function mutedTalkAfter(
  talk: MutedTalk,
  sample: { readonly muted: boolean; readonly loud: boolean; readonly now: number },
): { talk: MutedTalk; tell: boolean } {
  const { muted, loud, now } = sample;
  if (!muted) return { talk: { ...notTalking, toldAt: talk.toldAt }, tell: false };
  if (!loud) {
    const over = talk.loudAt === null || now - talk.loudAt > talkGapMs;
    return { talk: over ? { ...talk, since: null } : talk, tell: false };
  }
  // A gap longer than between words starts a new talk.
  const since = talk.since !== null && talk.loudAt !== null && now - talk.loudAt <= talkGapMs ? talk.since : now;
  const tell = now - since >= mutedTalkMs && (talk.toldAt === null || now - talk.toldAt >= mutedTellAgainMs);
  return { talk: { since: tell ? null : since, loudAt: now, toldAt: tell ? now : talk.toldAt }, tell };
}

/** The chat's unread count: a message from someone else while the chat is not shown adds one; showing it clears. */
export type ChatEvent =
  { readonly type: 'message'; readonly mine: boolean; readonly shown: boolean } | { readonly type: 'shown' };

export function unreadAfter(unread: number, event: ChatEvent): number {
  if (event.type === 'shown') return 0;
  return event.mine || event.shown ? unread : unread + 1;
}
