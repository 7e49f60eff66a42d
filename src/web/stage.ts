import type { ClientMessage, ParticipantView } from '../protocol/live.js';
import { announce } from './announce.js';
import { badge, button, el } from './dom.js';
import { icon } from './icons.js';
import { layoutSwitch, storedLayout } from './stage-layout.js';
import { initialsOf, pictureOf } from './state/signals.js';
import { arrange, columnsFor, viewOf, type LayoutMode } from './tile-arrangement.js';
import { fill, words } from './words/index.js';

/** A phone (the style sheet's breakpoints: narrow, or short when held on its side): the tiles come a page at a time. */
const phoneQuery = '(max-width: 48rem), (max-height: 30rem)';
const landscapeQuery = '(orientation: landscape)';
/** The server hears the tiles on screen once they settle: paging quickly sends one view, not one per page. */
const viewSettleMs = 400;

/** Whose video the page shows now, for the server (`view`): it forwards only that video. */
export type ViewListener = (message: Extract<ClientMessage, { type: 'view' }>) => void;

/**
 * The stage: one tile per participant (an `li` of the tiles list holding a `figure`: a figure
 * cannot itself be a list item). The list's data attributes choose the layout in the style
 * sheet: a grid sized for the count, or one tile large (a shared screen, or the speaker in
 * speaker view) and the others in a strip. Tiles off the current page are hidden, and the
 * server is told which video is on screen (stage-layout.ts decides what is).
 */
export class Stage {
  readonly element = el('ul', { class: 'tiles', 'aria-label': words.stage.label, 'data-cols': '1' });
  private readonly tiles = new Map<string, HTMLElement>();
  /** Pictures that failed to load on this page: their tiles show the initials. */
  private readonly brokenPictures = new Set<string>();
  /** Previous and next page of tiles, and which page this is: shown only when the tiles do not fit one page (a phone). */
  readonly pager: HTMLElement;
  private readonly previous = this.turner('previous', -1);
  private readonly next = this.turner('next', 1);
  private readonly pageText = el('span', { class: 'page-of' });
  private page = 0;
  private pages = 1;
  private readonly phone = window.matchMedia(phoneQuery);
  private readonly landscape = window.matchMedia(landscapeQuery);
  private mode: LayoutMode = storedLayout();
  /** Who spoke last, from the server's `speaking`: the large tile of speaker view. */
  private speaker: string | null = null;
  /** The layout buttons and the pager, under the tiles. */
  readonly controls: HTMLElement;
  private viewTimer = 0;
  private lastView = '';

  constructor(
    private readonly selfId: () => string | undefined,
    private readonly ownStream: MediaStream,
    private readonly onView: ViewListener = () => {},
  ) {
    this.pager = el(
      'div',
      { class: 'pager', role: 'group', 'aria-label': words.stage.pages, hidden: true },
      this.previous,
      this.pageText,
      this.next,
    );
    const modes = layoutSwitch(this.mode, (mode) => {
      this.mode = mode;
      this.page = 0;
      this.layout();
    });
    this.controls = el('div', { class: 'stage-controls' }, modes.element, this.pager);
    this.phone.addEventListener('change', () => this.layout());
    this.landscape.addEventListener('change', () => this.layout());
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
      // Her initials stand in for the video while her camera is off (text; the tile is named by her name).
      const initials = el('span', { class: 'initials', 'aria-hidden': 'true' });
      tile = el('li', { class: 'tile' }, el('figure', {}, video, initials, el('figcaption')));
      this.tiles.set(p.participant_id, tile);
      this.element.append(tile);
    }
    const muted = p.audio
      ? null
      : el(
          'span',
          { class: 'badge state muted' },
          icon('micOff'),
          el('span', { class: 'visually-hidden', text: words.stage.muted }),
        );
    const cameraOff = !p.video && !p.screen;
    tile.classList.toggle('camera-off', cameraOff);
    tile.querySelector('.initials')!.textContent = initialsOf(p.name);
    this.picture(tile, pictureOf(p.avatar_url, this.brokenPictures));
    const marks = [
      p.role === 'moderator' ? badge(words.people.moderator) : null,
      muted,
      cameraOff ? el('span', { class: 'visually-hidden', text: words.signals.cameraOff }) : null,
      p.screen ? badge(words.stage.sharing, 'state') : null,
    ];
    tile
      .querySelector('figcaption')!
      .replaceChildren(el('span', { class: 'name', text: p.name }), ...marks.filter((m) => m !== null));
    tile.setAttribute('aria-label', p.name);
    tile.dataset.screen = String(p.screen);
    this.layout();
    return tile;
  }

  /**
   * Her picture in place of her initials while her camera is off (issue 33 point 8): an image with
   * an empty alt, as the tile already names her; one that fails to load gives way to the initials.
   */
  private picture(tile: HTMLElement, url: string | null): void {
    const shown = tile.querySelector<HTMLImageElement>('img.avatar');
    tile.classList.toggle('has-picture', url !== null);
    if (url === null) return shown?.remove();
    if (shown?.getAttribute('src') === url) return;
    const img = el('img', { class: 'avatar', alt: '', src: url, referrerpolicy: 'no-referrer', decoding: 'async' });
    img.addEventListener('error', () => {
      this.brokenPictures.add(url);
      img.remove();
      tile.classList.remove('has-picture');
    });
    if (shown) shown.replaceWith(img);
    else tile.querySelector('.initials')!.before(img);
  }

  /** Her tile's figure, where other views draw their marks (a raised hand, a reaction). */
  figure(id: string): HTMLElement | null {
    return this.tiles.get(id)?.querySelector('figure') ?? null;
  }

  remove(id: string): void {
    this.tiles.get(id)?.remove();
    this.tiles.delete(id);
    if (this.speaker === id) this.speaker = null;
    // Every tile gone (the connection is made again): the next view goes out even if it is the same.
    if (this.tiles.size === 0) this.lastView = '';
    this.layout();
  }

  /** The server's word on who speaks (the mesh's pages, Janus's audio levels): it chooses speaker view's large tile. */
  speaking(id: string, on: boolean): void {
    // Her own voice does not take the large tile: she knows what she looks like.
    if (!this.tiles.has(id) || !on || this.speaker === id || id === this.selfId()) return;
    this.speaker = id;
    if (this.mode === 'speaker') this.layout();
  }

  /** The speaking outline, from the audio this page measures itself (signals.ts). */
  outline(id: string, on: boolean): void {
    this.tiles.get(id)?.classList.toggle('speaking', on);
  }

  /** Whose received audio track is whose (track id → participant), from the streams on the tiles. */
  audioOwners(): Map<string, string> {
    const owners = new Map<string, string>();
    for (const [id, tile] of this.tiles) {
      const stream = tile.querySelector('video')?.srcObject;
      if (stream instanceof MediaStream) for (const track of stream.getAudioTracks()) owners.set(track.id, id);
    }
    return owners;
  }

  /** Someone's media on her tile; returns the element that plays it. */
  attach(id: string, stream: MediaStream): HTMLVideoElement | null {
    const video = this.tiles.get(id)?.querySelector('video') ?? null;
    if (video && video.srcObject !== stream) {
      video.srcObject = stream;
      void video.play().catch(() => {});
    }
    return video;
  }

  private layout(): void {
    const self = this.selfId();
    const ids = [...this.tiles.keys()];
    const arrangement = arrange({
      ids,
      mode: this.mode,
      phone: this.phone.matches,
      self,
      speaker: this.speaker,
      sharing: ids.find((id) => this.tiles.get(id)?.dataset.screen === 'true') ?? null,
      page: this.page,
    });
    const { large, shown } = arrangement;
    this.page = arrangement.page;
    this.pages = arrangement.pages;
    for (const [id, tile] of this.tiles) {
      tile.hidden = id !== large && !shown.includes(id);
      tile.classList.toggle('featured', id === large);
    }
    this.element.dataset.layout = large !== null ? 'share' : 'grid';
    this.element.dataset.mode = this.mode;
    this.pager.hidden = this.pages <= 1;
    this.pageText.textContent = fill(words.stage.page, { page: this.page + 1, pages: this.pages });
    this.previous.setAttribute('aria-disabled', String(this.page === 0));
    this.next.setAttribute('aria-disabled', String(this.page === this.pages - 1));
    const screen = { phone: this.phone.matches, landscape: this.landscape.matches };
    this.element.dataset.cols = String(columnsFor(shown.length, screen));
    this.element.dataset.count = String(shown.length);
    this.tellView(viewOf(arrangement, self));
  }

  /** The view once it settles, and only when it changed. */
  private tellView(view: ReturnType<typeof viewOf>): void {
    window.clearTimeout(this.viewTimer);
    if (this.tiles.size === 0) return;
    const key = JSON.stringify(view);
    this.viewTimer = window.setTimeout(() => {
      if (key === this.lastView) return;
      this.lastView = key;
      this.onView({ type: 'view', ...view });
    }, viewSettleMs);
  }
}
