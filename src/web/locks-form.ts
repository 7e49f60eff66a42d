import type { Locks } from '../protocol/live.js';
import { el } from './dom.js';
import { words } from './words/index.js';

/** Lock settings a moderator sets for participants. */
export function locksForm(locks: Locks, change: (locks: Locks) => void): HTMLElement {
  const boxes = {
    mic: el('input', { type: 'checkbox', checked: locks.mic }),
    cam: el('input', { type: 'checkbox', checked: locks.cam }),
    cams_moderators_only: el('input', { type: 'checkbox', checked: locks.cams_moderators_only }),
  };
  const send = () =>
    change({
      mic: boxes.mic.checked,
      cam: boxes.cam.checked,
      cams_moderators_only: boxes.cams_moderators_only.checked,
    });
  for (const box of Object.values(boxes)) box.addEventListener('change', send);
  return el(
    'fieldset',
    {},
    el('legend', { text: words.locks.legend }),
    el('label', {}, boxes.mic, ` ${words.locks.mics}`),
    el('br'),
    el('label', {}, boxes.cam, ` ${words.locks.cameras}`),
    el('br'),
    el('label', {}, boxes.cams_moderators_only, ` ${words.locks.camerasModeratorsOnly}`),
  );
}
