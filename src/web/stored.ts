/**
 * Web storage that may be refused. Inside an embedding page's frame on another site, with
 * third-party cookies blocked (incognito, and more and more browsers by default), Chromium
 * throws on any touch of localStorage or sessionStorage. What the client keeps there is a
 * convenience (device choices, a typed name across a reload), so a refusal means "nothing
 * remembered" rather than a page that stops half-way.
 */
type Kind = 'local' | 'session';

function storage(kind: Kind): Storage {
  return kind === 'local' ? window.localStorage : window.sessionStorage;
}

export function storedGet(kind: Kind, key: string): string | null {
  try {
    return storage(kind).getItem(key);
  } catch {
    return null;
  }
}

export function storedSet(kind: Kind, key: string, value: string): void {
  try {
    storage(kind).setItem(key, value);
  } catch {
    // not remembered: see above
  }
}

export function storedRemove(kind: Kind, key: string): void {
  try {
    storage(kind).removeItem(key);
  } catch {
    // refused storage held nothing to remove
  }
}
