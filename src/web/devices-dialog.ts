import type { Devices } from './devices.js';
import { button, el } from './dom.js';
import { words } from './words/index.js';

/**
 * The meeting's devices dialog: the device check of the arrival again (camera, microphone,
 * speaker with its test sound, background), changed while she is in the meeting. A native
 * modal dialog: the focus stays inside, Escape closes it and the focus goes back to the toolbar.
 */
export function devicesDialog(devices: Devices): { dialog: HTMLDialogElement; open: () => void } {
  const dialog = el('dialog', { class: 'help devices-dialog', 'aria-labelledby': 'devices-heading' });
  return {
    dialog,
    open: () => {
      if (dialog.open) return;
      dialog.replaceChildren(
        devices.render({ switches: false }),
        button(words.help.close, () => dialog.close(), { class: 'primary' }),
      );
      dialog.showModal();
    },
  };
}
