/**
 * The display-name rule shared by every way a name enters (typed at a room, a rooms-API link,
 * the meeting API's join). A name is shown to other people next to the service's own words,
 * so it must not hide text, reorder text, or pass for the service or for a role.
 *
 * Roles and the System sender are drawn by the client from fields of the live messages, never
 * from a name; refusing look-alike names keeps a name from imitating those markers in places
 * that show only text (timelines, attendance CSV, the meeting API's attendee list).
 */

/**
 * Invisible characters: every format character (Cf: bidi embeddings, overrides and isolates
 * U+202A–U+202E and U+2066–U+2069, LRM/RLM/ALM, zero-width space, word joiner, invisible
 * operators, BOM, U+180E, soft hyphen, tag characters...), the whole tag block (U+E0000 is
 * unassigned, not Cf, but belongs to the same smuggling trick), control characters, lone
 * surrogates, line and paragraph separators, and the Hangul fillers that render as blanks
 * (a common way to make an empty-looking name). Tags also spell the subdivision flags
 * (England, Scotland, Wales): those emoji are refused as the price of refusing hidden text.
 */
const invisible = /[\p{Cf}\p{Cc}\p{Cs}\p{Zl}\p{Zp}\u{E0000}-\u{E007F}\u115F\u1160\u3164\uFFA0]/u;

/**
 * ZWNJ (U+200C) and ZWJ (U+200D) are Cf too, but names need them: ZWNJ inside Persian and
 * Indic words, ZWJ inside emoji sequences (👨‍👩‍👧) and Indic conjuncts. They are allowed only
 * between two visible characters, where they join or separate what is drawn; at an end, next
 * to a space or next to another invisible character they only hide something, so are refused.
 */
const joiners = new Set([0x200c, 0x200d]);

const isJoiner = (ch: string | undefined): boolean => ch !== undefined && joiners.has(ch.codePointAt(0)!);
const isVisible = (ch: string | undefined): boolean => ch !== undefined && !/\s/u.test(ch) && !invisible.test(ch);

/** The first invisible character that is not a joiner between visible characters, as U+XXXX. */
function hiddenCharacter(name: string): string | null {
  const chars = [...name];
  for (let i = 0; i < chars.length; i += 1) {
    const ch = chars[i]!;
    const allowed = isJoiner(ch) ? isVisible(chars[i - 1]) && isVisible(chars[i + 1]) : !invisible.test(ch);
    if (!allowed) return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return null;
}

/** The name the meeting API posts the System chat under. */
export const systemName = 'System';

/**
 * Role words that must not end a name in brackets ("Bob (moderator)", "Eve [Host]"). The
 * service's own role is `moderator`; the others are what other meeting tools call it, and
 * `system` is the chat sender.
 */
const roleWords = ['moderator', 'mod', 'host', 'co-host', 'cohost', 'admin', 'administrator', 'presenter', 'organizer', 'organiser', 'owner', 'system'];
const roleSuffix = new RegExp(`[([{]\\s*(?:${roleWords.join('|')})\\s*[)\\]}][\\s\\p{P}]*$`, 'iu');

/**
 * Compared after NFKC (full-width "ＳＹＳＴＥＭ" and "（host）" fold to ASCII) and in lower case.
 * For System, only the letters and digits count, so "System:", "[System]" or "S y s t e m"
 * are the same name; confusables from other scripts (Cyrillic "Ѕуѕtеm") are not folded: the
 * client's System badge, which no name can produce, is what tells them apart.
 */
function folded(name: string): string {
  return name.normalize('NFKC').toLowerCase().trim();
}

export type NameProblem =
  { readonly kind: 'hidden_character'; readonly character: string } | { readonly kind: 'impersonates_system' } | { readonly kind: 'role_suffix' };

/** Why a (trimmed, non-empty) name may not be shown, or null when it may. Length is the caller's. */
export function nameProblem(name: string): NameProblem | null {
  const character = hiddenCharacter(name);
  if (character) return { kind: 'hidden_character', character };
  const plain = folded(name);
  if (plain.replace(/[^\p{L}\p{N}]/gu, '') === systemName.toLowerCase()) return { kind: 'impersonates_system' };
  if (roleSuffix.test(plain)) return { kind: 'role_suffix' };
  return null;
}

export function describeNameProblem(problem: NameProblem): string {
  switch (problem.kind) {
    case 'hidden_character':
      return `must not contain invisible or text-direction characters (found ${problem.character})`;
    case 'impersonates_system':
      return `must not be "${systemName}": the service posts under that name`;
    case 'role_suffix':
      return 'must not end in a role such as "(moderator)": the service shows roles itself';
  }
}

/**
 * A name another system sent (the meeting API's fullName): invisible characters are removed
 * rather than refused, since the person did not type them here and cannot fix them; controls
 * and separators become spaces; runs of spaces shrink to one; at most `max` characters. The
 * result may still impersonate (a platform can send "System"): the caller checks it with
 * `nameProblem` and refuses, since renaming someone silently would hide the platform's mistake.
 */
export function cleanName(raw: string, max: number): string {
  const spaced = raw.replace(/[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/gu, ' ');
  const dropHidden = (text: string): string => {
    const chars = [...text];
    return chars.filter((ch, i) => (isJoiner(ch) ? isVisible(chars[i - 1]) && isVisible(chars[i + 1]) : !invisible.test(ch))).join('');
  };
  const once = dropHidden(spaced).replace(/\s+/gu, ' ').trim();
  // Cutting may leave a joiner at the end: drop it again after the cut.
  return dropHidden([...once].slice(0, max).join('')).trim();
}
