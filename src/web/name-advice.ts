/**
 * Plain words for a name the server refused (400 invalid_field, field `name`). The server's
 * rule (engine/display-name.ts) decides; the page cannot import it, so this only guesses which
 * part was broken to choose the sentence, and falls back to one naming every part.
 */
import { words } from './words/index.js';

// Invisible characters of the rule; a joiner (U+200C/U+200D) counts only at an end or next to a space.
const hidden = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\u{E0000}-\u{E007F}\u115F\u1160\u3164\uFFA0]/u;
const joiner = /[\u200C\u200D]/u;
// The server refuses a role word in brackets anywhere; any bracket is reason enough to say so.
const bracketed = /[\p{Ps}\p{Pe}<>]/u;

function hasHidden(name: string): boolean {
  const chars = [...name];
  return chars.some((ch, i) => {
    if (!joiner.test(ch)) return hidden.test(ch);
    const around = [chars[i - 1], chars[i + 1]];
    return around.some((c) => c === undefined || /\s/u.test(c) || hidden.test(c));
  });
}

export function nameAdvice(typed: string): string {
  const name = typed.trim();
  const folded = name.normalize('NFKC').toLowerCase();
  if (hasHidden(name)) return words.name.hidden;
  if (folded.replace(/[^\p{L}\p{N}]/gu, '') === 'system') return words.name.system;
  if (bracketed.test(folded)) return words.name.role;
  if ([...name].length > 64) return words.name.tooLong;
  return words.name.other;
}
