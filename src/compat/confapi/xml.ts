import xml2js from 'xml2js';

/**
 * A response body: element name → text, number, boolean, a nested element, or a list of
 * elements repeated under that name. Key order is element order (names never start with a
 * digit, so JavaScript keeps insertion order).
 */
export type XmlValue = string | number | boolean | XmlElement | readonly XmlElement[];
export interface XmlElement {
  readonly [name: string]: XmlValue;
}

// Everything XML 1.0 cannot carry: C0 controls but tab, line feed and carriage return,
// U+FFFE/U+FFFF and, thanks to the u flag, every lone surrogate.
const notXmlChar = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** The text with every character XML cannot hold removed; markup is escaped by the builder. */
export function xmlSafe(text: string): string {
  return text.replace(notXmlChar, '');
}

// Array.isArray narrows a readonly array to any[]; this keeps the element type.
function isList(value: XmlValue): value is readonly XmlElement[] {
  return Array.isArray(value);
}

function clean(value: XmlValue): unknown {
  if (typeof value === 'string') return xmlSafe(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isList(value)) return value.map((item) => clean(item));
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) out[name] = clean(inner);
  return out;
}

const builder = new xml2js.Builder({
  rootName: 'response',
  headless: true,
  renderOpts: { pretty: true, indent: '', newline: '\n', allowEmpty: true } as xml2js.RenderOptions,
});

/** `<response>…</response>`, one element per line like the upstream templates, no declaration. */
export function renderResponse(body: XmlElement): string {
  return `${builder.buildObject(clean(body))}\n`;
}

export function success(fields: XmlElement = {}): string {
  return renderResponse({ returncode: 'SUCCESS', ...fields });
}

export function failed(messageKey: string, message: string): string {
  return renderResponse({ returncode: 'FAILED', messageKey, message });
}

/** Java's `Date.toString()` in UTC, as upstream prints `createDate`: `Mon Jul 09 17:03:29 UTC 2018`. */
export function javaDate(ms: number): string {
  const d = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(
    d.getUTCSeconds(),
  )} UTC ${d.getUTCFullYear()}`;
}
