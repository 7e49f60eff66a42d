import { randomBytes } from 'node:crypto';
import { refusals, type RefusalCode } from './refusals.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Inside an iframe, tells the embedding page why it was refused, as the embedding API's
 * `errorOccurred` event. The parent's origin is unknown here (the token was refused), so
 * the message goes to `*` and carries only the error's name and sentence, nothing secret.
 * It reads them from the body's data attributes: the script text is the same for every page.
 */
const script = `(function () {
  if (window.parent === window) return;
  var d = document.body.dataset;
  window.parent.postMessage({ type: 'errorOccurred', error: { name: d.errorName, message: d.errorMessage, isFatal: true } }, '*');
})();`;

export interface ErrorPage {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * The refusal as a page: text only (every value escaped), a strict CSP whose one script is
 * allowed by a fresh nonce, framable by `frameAncestors` (it holds nothing worth protecting,
 * and a frame that cannot show it cannot tell its parent either).
 */
export function errorPage(
  code: RefusalCode,
  frameAncestors: readonly string[],
  text: string = refusals[code].text,
): ErrorPage {
  const refusal = { ...refusals[code], text };
  const nonce = randomBytes(16).toString('base64');
  const title = refusal.status === 404 ? 'Meeting not found' : 'You cannot join this meeting';
  const body = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body data-error-name="${escapeHtml(refusal.name)}" data-error-message="${escapeHtml(refusal.text)}">`,
    `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(refusal.text)}</p></main>`,
    `<script nonce="${nonce}">${script}</script>`,
    '</body></html>',
    '',
  ].join('\n');
  const ancestors = frameAncestors.includes('*')
    ? '*'
    : frameAncestors.length > 0
      ? frameAncestors.join(' ')
      : "'none'";
  return {
    status: refusal.status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors}`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    },
    body,
  };
}
