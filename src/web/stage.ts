import type { ParticipantView } from '../protocol/live.js';
import { announce } from './announce.js';
import { badge, button, el } from './dom.js';
import { icon } from './icons.js';
import { fill, words } from './words/index.js';

/** A phone (the style sheet's breakpoint): the tiles come a page at a time, two by two. */
const phoneQuery = '(max-width: 48rem)';
const tilesPerPhonePage = 4;

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
  /** Previous and next page of tiles, and which page this is: shown only when the tiles do not fit one page (a phone). */
  readonly pager: HTMLElement;
  private readonly previous = this.turner('previous', -1);
  private readonly next = this.turner('next', 1);
  private readonly pageText = el('span', { class: 'page-of' });
  private page = 0;
  private pages = 1;
  private readonly phone = window.matchMedia(phoneQuery);

  constructor(
    private readonly selfId: () => string | undefined,
    private readonly ownStream: MediaStream,
  ) {
    this.pager = el('div', { class: 'pager', role: 'group', 'aria-label': words.stage.pages, hidden: true }, this.previous, this.pageText, this.next);
    this.phone.addEventListener('change', () => this.layout());
  }

  /** A page button: aria-disabled at either end rather than disabled, so the focus stays on it. */
  private turner(which: 'previous' | 'next', step: number): HTMLButtonElement {
    const b = button('', () => this.turn(step), { class: 'tool', 'aria-label': words.stage[which] });
    b.append(icon(which));
    return b;
  }

  private turn(step: number): void {
    const to = this.page + step;
    if (to < 0 || to >= this.pages) return;
    this.page = to;
    this.layout();
    announce(this.pageText.textContent ?? '');
  }

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
    // On a phone a page holds four tiles (two by two, each large enough to see a face); a shared screen keeps its own layout.
    const tiles = [...this.element.children].filter((c): c is HTMLElement => c instanceof HTMLElement);
    const perPage = this.phone.matches && !sharing ? tilesPerPhonePage : Math.max(1, tiles.length);
    this.pages = Math.max(1, Math.ceil(tiles.length / perPage));
    this.page = Math.min(this.page, this.pages - 1);
    tiles.forEach((tile, i) => (tile.hidden = Math.floor(i / perPage) !== this.page));
    this.pager.hidden = this.pages <= 1;
    this.pageText.textContent = fill(words.stage.page, { page: this.page + 1, pages: this.pages });
    this.previous.setAttribute('aria-disabled', String(this.page === 0));
    this.next.setAttribute('aria-disabled', String(this.page === this.pages - 1));
    const shown = Math.min(perPage, tiles.length - this.page * perPage);
    this.element.dataset.cols = String(columnsFor(shown));
    this.element.dataset.count = String(shown);
  }
}
