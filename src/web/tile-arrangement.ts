// Plain functions (no DOM, no words): the stage's arithmetic, tested in Node.

/**
 * How the stage arranges the tiles. `grid`: pages of at most 25 tiles (five by five). `speaker`:
 * the one who spoke last (or the screen being shared) large, the others in a strip below.
 */
export type LayoutMode = 'speaker' | 'grid';

export const gridPageSize = 25;
/** A phone shows four tiles a page (two by two, each large enough to see a face). */
export const phonePageSize = 4;
/** Tiles in the strip under the large one: a row on a wide screen, a few on a phone. */
export const stripSize = 8;
export const phoneStripSize = 3;

/** The screen the tiles are laid out on: a phone (narrow, or short in landscape) and which way it is held. */
export interface Screen {
  readonly phone: boolean;
  readonly landscape: boolean;
}

/**
 * Columns of the grid for n tiles on screen, so that no video becomes a thin strip. A wide
 * screen: 1 fills, 2 side by side, 3-4 two by two, then as square as the count allows (at most
 * five across). A phone held upright: 1 fills, 2 one above the other (each half the screen),
 * 3-4 two by two (its page holds four). A phone on its side: side by side, up to four across.
 */
export function columnsFor(count: number, screen: Screen = { phone: false, landscape: true }): number {
  if (count <= 1) return 1;
  if (screen.phone) return screen.landscape ? Math.min(count, phonePageSize) : count === 2 ? 1 : 2;
  if (count <= 4) return 2;
  return Math.min(5, Math.ceil(Math.sqrt(count)));
}

/** Which tiles a page of the stage shows: `large` (or none) and the others on screen, in order. */
export interface Arrangement {
  readonly large: string | null;
  readonly shown: readonly string[];
  readonly page: number;
  readonly pages: number;
}

export interface ArrangeInput {
  /** Every tile, in the stage's order. */
  readonly ids: readonly string[];
  readonly mode: LayoutMode;
  readonly phone: boolean;
  readonly self: string | undefined;
  /** Who spoke last (null: no one yet, or she left). */
  readonly speaker: string | null;
  /** Whose screen is shared (null: nobody's). */
  readonly sharing: string | null;
  readonly page: number;
}

/**
 * The tiles on screen. A shared screen is always large (it is unreadable small); in speaker
 * view so is the last speaker, or the first other person before anyone spoke. The rest page
 * through the grid (25, or 4 on a phone) or through the strip.
 */
export function arrange(input: ArrangeInput): Arrangement {
  const { ids, mode, phone, self } = input;
  const present = (id: string | null): id is string => id !== null && ids.includes(id);
  let large: string | null = null;
  if (present(input.sharing)) large = input.sharing;
  else if (mode === 'speaker' && ids.length > 1)
    large = present(input.speaker) ? input.speaker : (ids.find((id) => id !== self) ?? null);
  const rest = ids.filter((id) => id !== large);
  const perPage = large !== null ? (phone ? phoneStripSize : stripSize) : phone ? phonePageSize : gridPageSize;
  const pages = Math.max(1, Math.ceil(rest.length / perPage));
  const page = Math.max(0, Math.min(input.page, pages - 1));
  return { large, shown: rest.slice(page * perPage, (page + 1) * perPage), page, pages };
}

/** What the server is told the page shows (`view`): the others' tiles on screen, never her own. */
export function viewOf(arrangement: Arrangement, self: string | undefined): { video: string[]; large?: string } {
  const video = [...(arrangement.large === null ? [] : [arrangement.large]), ...arrangement.shown].filter(
    (id) => id !== self,
  );
  return arrangement.large !== null && arrangement.large !== self ? { video, large: arrangement.large } : { video };
}
