/** The languages the page ships; the first is the fallback. */
export const languages = ['en', 'de'] as const;
export type Language = (typeof languages)[number];

/** 'de-AT' → 'de'; anything not shipped → null. */
function shipped(tag: string | null | undefined): Language | null {
  const base = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return languages.find((l) => l === base) ?? null;
}

/**
 * The page's language: the address's `lang` parameter when it names a shipped language, else the
 * first of the browser's preferred languages that is shipped, else English.
 */
export function chooseLanguage(query: string | null, preferred: readonly string[]): Language {
  return shipped(query) ?? preferred.map(shipped).find((l) => l !== null) ?? languages[0];
}

/** Fills `{name}` placeholders; a placeholder with no value stays visible rather than vanishing. */
export function fill(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(values, key) ? String(values[key]) : whole));
}

/** The `{name}` placeholders of a text, sorted (the catalogues' test compares them). */
export function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
}
