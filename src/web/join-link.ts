import { storedGet, storedSet } from './stored.js';

/** What the page may show from its join link before asking anything. */
export interface LinkHint {
  readonly moderator: boolean;
  /** The name the platform gave her (the server uses it, whatever is typed); null for none. */
  readonly name: string | null;
}

const none: LinkHint = { moderator: false, name: null };

/**
 * Reads the join token's payload for the arrival screen's wording only: the signature is not
 * checked here, and nothing is granted from it (the server verifies the token on /start and
 * decides). A moderator's link is let in without the access code, so the page does not ask
 * for it; a link that names her is what she joins as, so the page says so instead of asking.
 */
export function linkHint(token: string | null): LinkHint {
  const payload = token?.split('.')[1];
  if (!payload) return none;
  try {
    const binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const json = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const claims = JSON.parse(json) as { role?: unknown; name?: unknown } | null;
    if (typeof claims !== 'object' || claims === null) return none;
    const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name : null;
    return { moderator: claims.role === 'moderator', name };
  } catch {
    return none;
  }
}

const nameKey = 'meet.name';

/** The name last typed on this device (a bare link asks for it again, filled in). */
export function lastName(): string {
  return storedGet('local', nameKey) ?? '';
}

export function rememberName(name: string): void {
  storedSet('local', nameKey, name);
}
