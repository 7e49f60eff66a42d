/**
 * A call's raw query string read in one pass: its parameters decoded exactly as
 * `URLSearchParams` decodes them, and the text the client signed: the raw string with the
 * first `checksum` pair cut out with its separator, nothing decoded or re-encoded, so `+` and
 * `%20`, order, empty pairs and a leading `&` stay as signed (what upstream's literal removal
 * of `&checksum=c`, else `checksum=c&`, else `checksum=c` gives). Every call of the API needs
 * both; building a URLSearchParams, copying it and splitting the string again cost more than
 * the rest of a getMeetingInfo.
 */
export interface ReadQuery {
  /** Every parameter but `checksum`, in the order sent. */
  readonly params: [string, string][];
  /** The values of every `checksum` parameter (a valid call has exactly one). */
  readonly checksums: string[];
  /** The raw query with the first literal `checksum` pair removed: what is hashed. */
  readonly signed: string;
}

/** One name or value as a form decodes it: `+` is a space, then %XX bytes as UTF-8. */
function decodeFormComponent(text: string): string {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape or bytes that are not UTF-8: URLSearchParams keeps the bad escape
    // as text and replaces bad bytes with U+FFFD; let it decide rather than imitate it.
    return new URLSearchParams(`a=${text}`).get('a')!;
  }
}

export function readQuery(raw: string): ReadQuery {
  const params: [string, string][] = [];
  const checksums: string[] = [];
  let signed = raw;
  let cut = false;
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end < 0) end = raw.length;
    // The signed text is cut on the raw segment (a leading `?` stays part of it).
    if (!cut && (raw.startsWith('checksum=', start) || (end - start === 8 && raw.startsWith('checksum', start)))) {
      cut = true;
      signed = start > 0 ? raw.slice(0, start - 1) + raw.slice(end) : raw.slice(end + 1);
    }
    // URLSearchParams drops one leading `?` of the whole string and skips empty pairs.
    const from = start === 0 && raw.startsWith('?') ? 1 : start;
    if (end > from) {
      const eq = raw.indexOf('=', from);
      const name = decodeFormComponent(eq >= 0 && eq < end ? raw.slice(from, eq) : raw.slice(from, end));
      const value = eq >= 0 && eq < end ? decodeFormComponent(raw.slice(eq + 1, end)) : '';
      if (name === 'checksum') checksums.push(value);
      else params.push([name, value]);
    }
    start = end + 1;
  }
  return { params, checksums, signed };
}
