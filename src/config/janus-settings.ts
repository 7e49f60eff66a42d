// Issue 35 point 6: several Janus servers. SERVICE_JANUS_URLS lists their HTTP APIs; they share
// SERVICE_JANUS_API_SECRET and SERVICE_JANUS_ROOM_ADMIN_KEY, as servers installed from one
// template do (one secret pair for the whole pool is what an operator rotates in one place, and
// no secret ever sits in a URL, which is printed). Kept apart from settings.ts (which spreads this
// row in) so the one table stays under the house's file size.
import { InvalidValue, list } from './parsers.js';

/** Enough for a district's pool; a longer list is more likely a pasted mistake. */
const maxServers = 64;

/** A list of Janus HTTP API addresses: http(s), no user, password, query or fragment, none twice. */
function janusUrlList(raw: unknown): string[] {
  const entries = list(raw);
  if (entries.length === 0) throw new InvalidValue('must list at least one Janus HTTP API address');
  if (entries.length > maxServers) throw new InvalidValue(`must list at most ${maxServers} Janus servers`);
  const urls: string[] = [];
  for (const entry of entries) {
    // A password in an address would show wherever the configuration is printed: refused unquoted.
    if (entry.includes('@'))
      throw new InvalidValue(
        'must list addresses without user or password: the servers share SERVICE_JANUS_API_SECRET',
      );
    const shown = JSON.stringify(entry.length > 80 ? `${entry.slice(0, 80)}…` : entry);
    let url: URL | null;
    try {
      url = new URL(entry);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new InvalidValue(
        `must list http:// or https:// addresses of Janus HTTP APIs, such as http://10.0.0.5:8088/janus,http://10.0.0.6:8088/janus (got ${shown})`,
      );
    if (url.search !== '' || url.hash !== '')
      throw new InvalidValue(`must list addresses without query or fragment (got ${shown})`);
    const value = entry.replace(/\/+$/, '');
    if (urls.includes(value)) throw new InvalidValue(`lists ${shown} twice`);
    urls.push(value);
  }
  return urls;
}

export interface JanusConfig {
  readonly janusUrls: readonly string[] | null;
}

export const janusSettings = {
  janusUrls: {
    env: 'SERVICE_JANUS_URLS',
    toml: ['media', 'janus_urls'],
    flag: '--janus-urls',
    secret: false,
    fallback: null,
    parse: janusUrlList,
    shownDefault: "unset (one Janus: the daemon's own, or SERVICE_JANUS_URL)",
    description:
      'Several external Janus servers (their HTTP APIs, comma-separated, such as http://10.0.0.5:8088/janus,http://10.0.0.6:8088/janus) instead of one: each meeting goes to the less loaded of two chosen at random, and moves to another when its server dies. They share SERVICE_JANUS_API_SECRET and SERVICE_JANUS_ROOM_ADMIN_KEY (both required); not with SERVICE_JANUS_URL',
  },
};

/** The list needs the shared secrets, and one way of naming external Janus servers. */
export function janusProblems(
  urls: readonly string[] | null,
  url: string | null,
  apiSecret: string | null,
  adminKey: string | null,
): string[] {
  if (urls === null) return [];
  const problems: string[] = [];
  if (url !== null)
    problems.push(
      'SERVICE_JANUS_URLS and SERVICE_JANUS_URL name external Janus servers twice: list them all in SERVICE_JANUS_URLS and unset SERVICE_JANUS_URL',
    );
  if (apiSecret === null || adminKey === null)
    problems.push(
      'SERVICE_JANUS_URLS needs SERVICE_JANUS_API_SECRET and SERVICE_JANUS_ROOM_ADMIN_KEY: the api_secret and VideoRoom admin_key every listed server shares',
    );
  return problems;
}
