import { button, el } from './dom.js';
import { storedGet, storedSet } from './stored.js';
import type { LayoutMode } from './tile-arrangement.js';
import { words } from './words/index.js';

const layoutKey = 'meet.layout';

/** The layout she chose last in this browser; the grid until she chooses. */
export function storedLayout(): LayoutMode {
  return storedGet('local', layoutKey) === 'speaker' ? 'speaker' : 'grid';
}

/**
 * The two layout buttons (a group named "Layout"; the chosen one is aria-pressed). Buttons,
 * so Tab reaches them and Enter or Space chooses; the choice is kept for the next meeting.
 */
export function layoutSwitch(initial: LayoutMode, changed: (mode: LayoutMode) => void): { element: HTMLElement } {
  const choices: Record<LayoutMode, HTMLButtonElement> = {
    speaker: button(words.stage.speakerView, () => choose('speaker'), {
      class: 'layout-choice',
      'data-mode': 'speaker',
    }),
    grid: button(words.stage.grid, () => choose('grid'), { class: 'layout-choice', 'data-mode': 'grid' }),
  };
  const mark = (mode: LayoutMode) => {
    for (const [name, b] of Object.entries(choices)) b.setAttribute('aria-pressed', String(name === mode));
  };
  const choose = (mode: LayoutMode) => {
    mark(mode);
    storedSet('local', layoutKey, mode);
    changed(mode);
  };
  mark(initial);
  return {
    element: el(
      'div',
      { class: 'layout-switch', role: 'group', 'aria-label': words.stage.layout },
      choices.speaker,
      choices.grid,
    ),
  };
}

/**
 * The grid (the embedded client's tile view) on or off, `null` toggling it, as her click on a
 * layout button would (kept for the next meeting too): for an embedding page's `setTileView` and
 * `toggleTileView`. Whether the grid shows now.
 */
export function chooseTiles(controls: ParentNode, tiles: boolean | null): boolean {
  const pressed = (mode: LayoutMode) => controls.querySelector(`[data-mode="${mode}"]`)?.getAttribute('aria-pressed');
  const grid = tiles ?? pressed('grid') !== 'true';
  controls.querySelector<HTMLButtonElement>(`[data-mode="${grid ? 'grid' : 'speaker'}"]`)?.click();
  return pressed('grid') === 'true';
}
