/**
 * Room ids as people type them (issue 32 point 5), shared by the engine (which makes readable
 * ids) and the page (which reads what someone typed or pasted). Pure: no DOM, no Node.
 */

/**
 * Every room id: 1 to 64 of `A-Z a-z 0-9 . _ -`. '.' and '..' would be swallowed by URL
 * normalisation and could never be addressed again.
 */
export const roomIdPattern = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,64}$/;

/**
 * A readable id: ten lower-case letters in groups of three, four and three (`abc-defg-hij`),
 * 26^10 ≈ 2^47 ids, so a room cannot be found by walking through them.
 */
export const readableId = { alphabet: 'abcdefghijklmnopqrstuvwxyz', groups: [3, 4, 3], letters: 10 } as const;

/** The most characters a typed code may hold to be read at all (an id has at most 64; spaces and dashes come on top). */
export const typedCodeMax = 128;

/** Ten letters of the alphabet as a readable id: `abcdefghij` → `abc-defg-hij`. */
export function formatReadableId(letters: string): string {
  const [first, second] = readableId.groups;
  return `${letters.slice(0, first)}-${letters.slice(first, first + second)}-${letters.slice(first + second)}`;
}

/**
 * The readable id a typed code stands for, or null when it stands for none. Full-width and other
 * compatibility forms become their ASCII letters (NFKC), capitals are lowered, and spaces and
 * dashes of any kind are dropped; what is left must be exactly ten ASCII letters. Look-alike
 * letters of other scripts (Cyrillic `а`), accents, digits, invisible characters and anything
 * longer than typedCodeMax stand for no readable id: they are refused, never guessed at.
 */
export function readableFormOf(typed: string): string | null {
  if (typed.length > typedCodeMax) return null;
  const letters = typed.normalize('NFKC').replace(/[\s\p{Pd}]/gu, '');
  if (!/^[A-Za-z]+$/.test(letters) || letters.length !== readableId.letters) return null;
  return formatReadableId(letters.toLowerCase());
}
