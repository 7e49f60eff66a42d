import { el } from './dom.js';
import { words } from './words/index.js';

const lostText = words.meeting.reconnecting;
const backText = words.meeting.reconnected;

/**
 * The meeting's connection banner: a status region present from the start (a region that
 * appears already filled is not reliably read out), empty and invisible while the link is live.
 */
export function connectionBanner(): { element: HTMLElement; show(status: 'live' | 'reconnecting'): void } {
  const element = el('p', { class: 'connection-banner', role: 'status' });
  let clearTimer = 0;
  return {
    element,
    show(status) {
      window.clearTimeout(clearTimer);
      element.classList.toggle('lost', status === 'reconnecting');
      if (status === 'reconnecting') {
        element.textContent = lostText;
        return;
      }
      if (element.textContent !== lostText) return;
      element.textContent = backText;
      clearTimer = window.setTimeout(() => (element.textContent = ''), 4000);
    },
  };
}
