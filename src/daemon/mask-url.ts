/**
 * Masks secrets in a request URL before it is logged. Tokens travel in query strings (join
 * links `?t=`, the live socket's `session`, embed `jwt`, the meeting API's `checksum` and
 * passwords), and both listeners log through this one function.
 *
 * Two lines of defence. By name: the name is compared after what a query parser would undo
 * (`+`, percent-encoding, also applied twice) and after dropping case and anything but
 * letters and digits, so `%74=`, `T=`, `t%00=` and `%2574=` are all `t`. By shape: a value
 * (or a name) that looks like a token is masked whatever its name, for the names nobody
 * thought of: a JWT, an `mt_` access token, a hex checksum.
 */

/**
 * Normalised names whose value is secret (`t` is the join token, `pw` ends BBB's passwords,
 * `meetwait` is the waiting cookie's name should a client ever put it in a URL).
 */
const secretName = /^t$|token|session|jwt|checksum|passw|secret|pw$|code$|cookie|meetwait/;

/**
 * Normalised names whose value says who a person is: the meeting API's join (`fullName`,
 * `userID`, `avatarURL`). Every join is logged, and the log is no place for the platform's
 * users.
 */
const personalName = /^fullname$|^userid$|^avatarurl$/;

const secretShapes: readonly RegExp[] = [
  // A JWT: its header is base64url JSON, so it starts with `eyJ` (`{"`), then a dot.
  /eyJ[\w-]*\.[\w-]/,
  /(?:^|[^\w-])[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}(?:$|[^\w.-])/,
  // An access token of the rooms API.
  /mt_[\w-]{16,}/,
  // A checksum: SHA-1 is 40 hex digits, the others longer.
  /(?:^|[^0-9a-f])[0-9a-f]{40,}(?:$|[^0-9a-f])/i,
];

/** What a query parser makes of `text`: `+` is a space, percent-escapes decoded (repeatedly). */
function decoded(text: string): string {
  let current = text.replace(/\+/g, ' ');
  // Byte by byte, so a malformed or non-UTF-8 escape never throws; names of interest are ASCII.
  for (let round = 0; round < 4; round++) {
    const next = current.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) break;
    current = next;
  }
  return current;
}

const looksSecret = (text: string): boolean => {
  const plain = decoded(text);
  return secretShapes.some((shape) => shape.test(plain));
};

function maskPair(pair: string): string {
  const equals = pair.indexOf('=');
  const name = equals < 0 ? pair : pair.slice(0, equals);
  if (looksSecret(name)) return '***';
  if (equals < 0) return pair;
  const value = pair.slice(equals + 1);
  const normalised = decoded(name)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
  return secretName.test(normalised) || personalName.test(normalised) || looksSecret(value) ? `${name}=***` : pair;
}

export function maskUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  return `${url.slice(0, question + 1)}${url
    .slice(question + 1)
    .split('&')
    .map(maskPair)
    .join('&')}`;
}
