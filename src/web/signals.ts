import type { ChatMessage } from '../protocol/live.js';
import { announce } from './announce.js';
import { el } from './dom.js';
import type { Stage } from './stage.js';
import {
  levelsBetween,
  linkBetween,
  mutedTalkAfter,
  notTalking,
  qualityOf,
  readingOf,
  silent,
  unreadAfter,
  voiceAfter,
  type Quality,
  type Reading,
  type Stat,
  type Voice,
} from './state/signals.js';
import type { Tool } from './toolbar.js';
import { fill, words } from './words/index.js';

const said = words.signals;
/** Levels are read four times a second; the quality is judged every eighth reading (two seconds). */
const readEveryMs = 250;
const qualityEvery = 8;
/** "You are muted" stays on screen this long. */
const noticeMs = 5000;
/** Her own microphone's level (devices.ts's meter) above which she is talking. */
const ownVoiceLevel = 0.08;

export interface SignalsSources {
  /** The meeting's peer connections now (the mesh's or Janus's); none while she is alone. */
  readonly connections: () => readonly RTCPeerConnection[];
  /**
   * Herself: her id, whether her microphone is on (the meeting's state, not the track), and her
   * microphone's level, measured before the mute (devices.ts).
   */
  readonly me: () => { readonly id: string | undefined; readonly micOn: boolean; readonly level: number };
  /** Whether the chat is on screen. */
  readonly chatShown: () => boolean;
  /** Told when the chat's unread count changes. */
  readonly unreadChanged?: () => void;
}

/**
 * What the page measures for itself and shows: the speaking outline on each tile (from the audio
 * it receives, so it works alike for the mesh and for Janus, whoever sent it), "You are muted"
 * when she talks while muted, the connection's quality, and the chat's unread count.
 */
export class Signals {
  /** "Connection: good", beside the meeting's title. */
  readonly quality = el('p', { class: 'quality', hidden: true });
  /** Above the toolbar, for a few seconds. */
  readonly mutedNotice = el('p', { class: 'muted-notice', hidden: true, text: said.youAreMuted });
  private readonly timer: number;
  private reading: Reading | null = null;
  private linkReading: Reading | null = null;
  private readings = 0;
  private busy = false;
  private voices = new Map<string, Voice>();
  private talk = notTalking;
  private noticeTimer = 0;
  private shownQuality: Quality | null = null;
  private unread = 0;

  /** The stage whose tiles get the outline, and the toolbar's Chat button that shows the unread count. */
  constructor(
    private readonly stage: Stage,
    private readonly chatTool: Tool,
    private readonly options: SignalsSources,
  ) {
    this.timer = window.setInterval(() => void this.read(), readEveryMs);
  }

  private async read(): Promise<void> {
    const now = performance.now();
    this.own(now);
    if (this.busy) return;
    this.busy = true;
    try {
      const stats: Stat[] = [];
      for (const pc of this.options.connections()) {
        if (pc.connectionState === 'closed') continue;
        (await pc.getStats()).forEach((s: Stat) => stats.push(s));
      }
      const reading = readingOf(stats);
      this.outline(levelsBetween(this.reading, reading), now);
      this.reading = reading;
      if (this.readings++ % qualityEvery === 0) {
        this.showQuality(qualityOf(linkBetween(this.linkReading, reading)));
        this.linkReading = reading;
      }
    } catch {
      // A connection closed while it was read: the next reading starts afresh.
      this.reading = null;
    } finally {
      this.busy = false;
    }
  }

  /** Her own tile's outline, and "You are muted" when she talks while muted. */
  private own(now: number): void {
    const { id, micOn, level } = this.options.me();
    const loud = level > ownVoiceLevel;
    if (id) this.stage.outline(id, loud && micOn);
    const step = mutedTalkAfter(this.talk, { muted: !micOn, loud, now });
    this.talk = step.talk;
    if (step.tell) {
      this.mutedNotice.hidden = false;
      announce(said.youAreMuted);
      window.clearTimeout(this.noticeTimer);
      this.noticeTimer = window.setTimeout(() => (this.mutedNotice.hidden = true), noticeMs);
    } else if (micOn) {
      this.mutedNotice.hidden = true;
    }
  }

  private outline(levels: Map<string, number>, now: number): void {
    const owners = this.stage.audioOwners();
    const heard = new Map<string, number>();
    for (const [track, level] of levels) {
      const who = owners.get(track);
      if (who) heard.set(who, Math.max(heard.get(who) ?? 0, level));
    }
    for (const who of new Set([...heard.keys(), ...this.voices.keys()])) {
      const before = this.voices.get(who) ?? silent;
      const after = voiceAfter(before, heard.get(who) ?? 0, now);
      if (after.speaking !== before.speaking) this.stage.outline(who, after.speaking);
      if (after.speaking) this.voices.set(who, after);
      else this.voices.delete(who);
    }
  }

  private showQuality(quality: Quality | null): void {
    if (quality === this.shownQuality) return;
    const before = this.shownQuality;
    this.shownQuality = quality;
    this.quality.hidden = quality === null;
    if (quality === null) return;
    this.quality.dataset.quality = quality;
    this.quality.textContent = fill(said.connection, { quality: said[quality] });
    // Said when it turns poor, and when it recovers from poor: not at every wobble.
    if (quality === 'poor' || before === 'poor') announce(this.quality.textContent);
  }

  /** A chat message arrived (not the history of a welcome): counted unless hers or the chat is on screen. */
  chatArrived(message: ChatMessage, self: string | undefined): void {
    const mine = message.from.participant_id !== null && message.from.participant_id === self;
    this.setUnread(unreadAfter(this.unread, { type: 'message', mine, shown: this.options.chatShown() }));
  }

  /** The panel changed: the chat on screen clears the count. */
  panelChanged(): void {
    if (this.options.chatShown()) this.setUnread(unreadAfter(this.unread, { type: 'shown' }));
  }

  private setUnread(unread: number): void {
    if (unread === this.unread) return;
    this.unread = unread;
    const label = unread > 0 ? fill(said.chatUnread, { count: unread }) : words.toolbar.chat;
    this.chatTool.set(label, 'chat', unread);
    this.options.unreadChanged?.();
  }

  get unreadCount(): number {
    return this.unread;
  }

  close(): void {
    window.clearInterval(this.timer);
    window.clearTimeout(this.noticeTimer);
  }
}
