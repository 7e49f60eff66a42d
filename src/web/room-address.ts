/**
 * Which room a typed code or a pasted link names (issue 32 points 1 and 5): plain functions, no
 * DOM, unit-tested in Node. They read text only; whether a room exists is never asked here (the
 * arrival answers for that after the name step, as for any address).
 */
import { readableFormOf, roomIdPattern } from '../protocol/room-code.js';

/** Why a typed text names no room: nothing typed, no room's code or link, or a link to another site. */
export type Refusal = 'empty' | 'not_a_code' | 'elsewhere';

export type Typed = { readonly room: string; readonly token: string | null } | { readonly refused: Refusal };

/** The most a pasted link may hold (a join token is a few hundred characters; the page route reads up to 8 KiB of it). */
export const typedLinkMax = 9000;
const tokenMax = 8192;

/**
 * A code as typed: a room id exactly as typed when it is one (ids chosen through the rooms API
 * keep their capitals), else the readable id it stands for (`ABC DEFG HIJ`, `abcdefghij`,
 * full-width letters), else nothing.
 */
function fromCode(text: string): Typed {
  if (roomIdPattern.test(text)) return { room: text, token: null };
  const readable = readableFormOf(text);
  return readable ? { room: readable, token: null } : { refused: 'not_a_code' };
}

/** A link of this service (`https://host/room/{id}?t=…`, or without the scheme): the room and its join token. */
function fromLink(text: string, host: string): Typed {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text.replace(/^\/+/, '')}`);
  } catch {
    return { refused: 'not_a_code' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: 'not_a_code' };
  if (url.host.toLowerCase() !== host.toLowerCase()) return { refused: 'elsewhere' };
  const match = /^\/room\/([^/]+)\/?$/.exec(url.pathname);
  if (!match) return { refused: 'not_a_code' };
  let id: string;
  try {
    id = decodeURIComponent(match[1]!);
  } catch {
    return { refused: 'not_a_code' };
  }
  const code = fromCode(id);
  if ('refused' in code) return code;
  const token = url.searchParams.get('t');
  return { room: code.room, token: token && token.length <= tokenMax ? token : null };
}

/**
 * What someone typed into "Join a meeting": a code, or a link of this service (`host` is the
 * page's own). A path alone (`/room/abc-defg-hij`) counts as a link of this service.
 */
export function roomFromTyped(input: string, host: string): Typed {
  const text = input.trim();
  if (text === '') return { refused: 'empty' };
  if (text.length > typedLinkMax) return { refused: 'not_a_code' };
  if (text.startsWith('/')) return fromLink(`${host}${text}`, host);
  return text.includes('/') ? fromLink(text, host) : fromCode(text);
}

/** The arrival's address of a room, with its join token and the language the page was opened with. */
export function roomHref(room: string, token: string | null, lang: string | null): string {
  const pairs: [string, string | null][] = [
    ['t', token],
    ['lang', lang],
  ];
  const search = new URLSearchParams(pairs.filter((pair): pair is [string, string] => Boolean(pair[1]))).toString();
  return `/room/${encodeURIComponent(room)}${search ? `?${search}` : ''}`;
}

/**
 * The rooms an arrival's address may name, in the order to ask for them: the id as it stands when
 * it is one (so `/room/Mathematik`, an id chosen through the rooms API, stays itself), then the
 * readable id it stands for when that differs (`/room/ABC%20DEFG%20HIJ` is `abc-defg-hij`).
 * Undecodable text stays as it came: it names no room, and the arrival says so as for any other.
 */
export function arrivalRooms(pathSegment: string): string[] {
  let typed: string;
  try {
    typed = decodeURIComponent(pathSegment);
  } catch {
    return [pathSegment];
  }
  const readable = readableFormOf(typed);
  if (roomIdPattern.test(typed)) return readable && readable !== typed ? [typed, readable] : [typed];
  return [readable ?? typed];
}
