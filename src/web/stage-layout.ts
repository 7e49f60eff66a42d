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
    speaker: button(words.stage.speakerView, () => choose('speaker'), { class: 'layout-choice' }),
    grid: button(words.stage.grid, () => choose('grid'), { class: 'layout-choice' }),
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
