import type { ParticipantView } from '../protocol/live.js';
import { badge, el } from './dom.js';
import { icon } from './icons.js';
import { words } from './words/index.js';

/** Columns for n tiles of camera video, as square as the count allows: 1 fills, 2 side by side, 3-4 two by two, 5-9 three across... */
export function columnsFor(count: number): number {
  if (count <= 1) return 1;
  if (count <= 4) return 2;
  return Math.min(5, Math.ceil(Math.sqrt(count)));
}

/**
 * The stage: one tile per participant (an `li` of the tiles list holding a `figure`: a figure
 * cannot itself be a list item). The list's data attributes choose the layout in the style
 * sheet: a grid sized for the count, or, while someone shares a screen, that tile large and
 * the others in a strip.
 */
export class Stage {
  readonly element = el('ul', { class: 'tiles', 'aria-label': words.stage.label, 'data-cols': '1' });
  private readonly tiles = new Map<string, HTMLElement>();

  constructor(
    private readonly selfId: () => string | undefined,
    private readonly ownStream: MediaStream,
  ) {}

  /** The tile of a participant, made on first sight and redrawn from her view (name, badges). */
  show(p: ParticipantView): HTMLElement {
    let tile = this.tiles.get(p.participant_id);
    if (!tile) {
      const video = el('video', { autoplay: true, playsinline: true, 'data-participant': p.participant_id });
      if (p.participant_id === this.selfId()) {
        video.muted = true;
        video.srcObject = this.ownStream;
      }
      tile = el('li', { class: 'tile' }, el('figure', {}, video, el('figcaption')));
      this.tiles.set(p.participant_id, tile);
      this.element.append(tile);
    }
    const muted = p.audio
      ? null
      : el('span', { class: 'badge state muted' }, icon('micOff'), el('span', { class: 'visually-hidden', text: words.stage.muted }));
    const marks = [p.role === 'moderator' ? badge(words.people.moderator) : null, muted, p.screen ? badge(words.stage.sharing, 'state') : null];
    tile.querySelector('figcaption')!.replaceChildren(el('span', { class: 'name', text: p.name }), ...marks.filter((m) => m !== null));
    tile.setAttribute('aria-label', p.name);
    tile.classList.toggle('featured', p.screen);
    this.layout();
    return tile;
  }

  remove(id: string): void {
    this.tiles.get(id)?.remove();
    this.tiles.delete(id);
    this.layout();
  }

  speaking(id: string, on: boolean): void {
    this.tiles.get(id)?.classList.toggle('speaking', on);
  }

  attach(id: string, stream: MediaStream): void {
    const video = this.tiles.get(id)?.querySelector('video');
    if (video && video.srcObject !== stream) {
      video.srcObject = stream;
      void video.play().catch(() => {});
    }
  }

  private layout(): void {
    const sharing = [...this.tiles.values()].some((t) => t.classList.contains('featured'));
    this.element.dataset.layout = sharing ? 'share' : 'grid';
    this.element.dataset.cols = String(columnsFor(this.tiles.size));
    this.element.dataset.count = String(this.tiles.size);
  }
}
