import { announce } from './announce.js';
import { roomApi } from './api.js';
import { button, el } from './dom.js';
import { words } from './words/index.js';

const said = words.meeting;

/**
 * "Copy invite link", for moderators: one button that asks the server for a participant's link
 * to the room (never a moderator's: POST /room/{id}/invite) and puts it on the clipboard,
 * announced. Where the clipboard is refused, the link is shown, selected, to copy by hand.
 */
export function inviteControl(roomId: string, session: () => string): HTMLElement {
  const shown = el('input', { readonly: true, 'aria-label': said.inviteLink, class: 'invite-link', hidden: true });
  const copy = button(said.copyInvite, () => void run(), { class: 'invite' });
  async function run(): Promise<void> {
    copy.disabled = true;
    const answer = await roomApi.invite(roomId, session()).finally(() => (copy.disabled = false));
    if (!answer.ok) return announce(said.inviteFailed);
    const url = new URL(answer.body.url, location.origin).href;
    try {
      await navigator.clipboard.writeText(url);
      shown.hidden = true;
      announce(said.inviteCopied);
    } catch {
      shown.value = url;
      shown.hidden = false;
      shown.focus();
      shown.select();
      announce(said.inviteShown);
    }
  }
  return el('div', { class: 'invite-row' }, copy, shown);
}
