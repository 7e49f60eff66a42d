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
 * Role words that must not stand in brackets anywhere in a name ("Bob (moderator)", "[Host]
 * Eve", "Eve (Moderator) ✓"), in every language the page has. The service's own role is
 * `moderator` (the page's badge: "Moderator", "Moderation"); the others are what other meeting
 * tools and schools call it, and `system` is the chat sender. German words also match in their
 * feminine and plural forms, however gendered ("Moderatorin", "Moderator*innen", "Gastgeber:in").
 */
const englishRoles = [
  'moderator',
  'moderation',
  'mod',
  'host',
  'co-host',
  'cohost',
  'admin',
  'administrator',
  'presenter',
  'organizer',
  'organiser',
  'owner',
  'system',
];
const germanRoles = [
  'gastgeber',
  'co-gastgeber',
  'veranstalter',
  'organisator',
  'leitung',
  'besitzer',
  'eigentümer',
  'präsentator',
  'referent',
];
const roleWord = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...englishRoles, ...germanRoles].join('|')})(?:[*:_/·]?in(?:nen)?|en|s)?(?![\\p{L}\\p{N}])`,
  'u',
);
/** Opening and closing brackets of every script (after NFKC, full-width ones are ASCII already), and angle brackets. */
const bracket = /([\p{Ps}\p{Pe}<>])/u;
const opening = /[\p{Ps}<]/u;
const closing = /[\p{Pe}>]/u;

/**
 * Whether a role word stands inside brackets: in a stretch of the name that follows an opening
 * bracket or precedes a closing one (an unclosed "(Host" counts, "Host Eve (2)" does not).
 */
function roleInBrackets(plain: string): boolean {
  const parts = plain.split(bracket);
  for (let i = 0; i < parts.length; i += 2) {
    const before = parts[i - 1];
    const after = parts[i + 1];
    const inside = (before !== undefined && opening.test(before)) || (after !== undefined && closing.test(after));
    if (inside && roleWord.test(parts[i]!)) return true;
  }
  return false;
}

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
  | { readonly kind: 'hidden_character'; readonly character: string }
  | { readonly kind: 'impersonates_system' }
  | { readonly kind: 'role_in_brackets' };

/** Why a (trimmed, non-empty) name may not be shown, or null when it may. Length is the caller's. */
export function nameProblem(name: string): NameProblem | null {
  const character = hiddenCharacter(name);
  if (character) return { kind: 'hidden_character', character };
  const plain = folded(name);
  if (plain.replace(/[^\p{L}\p{N}]/gu, '') === systemName.toLowerCase()) return { kind: 'impersonates_system' };
  if (roleInBrackets(plain)) return { kind: 'role_in_brackets' };
  return null;
}

export function describeNameProblem(problem: NameProblem): string {
  switch (problem.kind) {
    case 'hidden_character':
      return `must not contain invisible or text-direction characters (found ${problem.character})`;
    case 'impersonates_system':
      return `must not be "${systemName}": the service posts under that name`;
    case 'role_in_brackets':
      return 'must not hold a role in brackets such as "(moderator)": the service shows roles itself';
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
    return chars
      .filter((ch, i) => (isJoiner(ch) ? isVisible(chars[i - 1]) && isVisible(chars[i + 1]) : !invisible.test(ch)))
      .join('');
  };
  const once = dropHidden(spaced).replace(/\s+/gu, ' ').trim();
  // Cutting may leave a joiner at the end: drop it again after the cut.
  return dropHidden([...once].slice(0, max).join('')).trim();
}
