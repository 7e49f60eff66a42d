import { chooseLanguage, fill, type Language } from './choose.js';
import { de } from './de.js';
import { en, type Words } from './en.js';

export { fill };

const catalogues: Record<Language, Words> = { en, de };
const asked = new URLSearchParams(location.search).get('lang');

/** Chosen once, when the page loads: `?lang=` first, then the browser's languages, else English. */
export const language: Language = chooseLanguage(asked, navigator.languages ?? [navigator.language]);

/** The one catalogue every visible word of the page comes from. */
export const words: Words = catalogues[language];

/**
 * A page address that keeps the `lang` parameter the page was opened with (the address is
 * rewritten on entering a meeting; a reload must keep the language she chose).
 */
export function withLanguage(path: string): string {
  return asked ? `${path}?lang=${encodeURIComponent(asked)}` : path;
}

/** A text with one `{placeholder}` filled by a node (a name in <strong>, ...), as text and the node in order. */
export function fillNode(text: string, key: string, node: Node): (string | Node)[] {
  const [before = '', after = ''] = text.split(`{${key}}`);
  return [before, node, after].filter((part) => part !== '');
}
