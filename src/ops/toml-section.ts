import { isDeepStrictEqual } from 'node:util';
import { parse as parseToml, stringify as stringifyToml, TomlError } from 'smol-toml';
import { activeKeyLine, escapeRegExp } from './key-lines.js';

/**
 * Edits the keys of one table of a TOML file as text, so every other line and comment of
 * the operator's file stays byte for byte. Only the table's header lines are located by
 * hand; the result is parsed with smol-toml and must mean exactly the old document with the
 * requested keys changed, or the edit is refused (a layout this does not understand, such
 * as a multi-line array whose lines start with "[", is never half-edited).
 */

export type TomlScalar = string | boolean | number;

export class TomlEditError extends Error {
  override readonly name = 'TomlEditError';
}

type Table = Record<string, unknown>;

function headerPattern(section: readonly string[]): RegExp {
  return new RegExp(`^\\s*\\[\\s*${section.map(escapeRegExp).join('\\s*\\.\\s*')}\\s*\\]\\s*(#.*)?\\r?$`);
}

/** Any table or array-of-tables header. */
const anyHeader = /^\s*\[/;

function commentedKey(key: string): RegExp {
  return new RegExp(`^\\s*#\\s*${escapeRegExp(key)}\\s*=`);
}

function parsed(text: string, name: string): Table {
  try {
    return parseToml(text);
  } catch (err) {
    if (err instanceof TomlError)
      throw new TomlEditError(`${name}:${err.line}:${err.column}: malformed TOML: ${err.message.split('\n')[0]}`);
    throw err;
  }
}

/** Plain JSON-shaped data: smol-toml's tables have no prototype, and order of keys does not matter. */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

function tableAt(doc: Table, section: readonly string[], create: boolean): Table | null {
  let node: Table = doc;
  for (const part of section) {
    const next = node[part];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      node = next as Table;
    } else if (next === undefined && create) {
      node[part] = {};
      node = node[part] as Table;
    } else if (next === undefined) {
      return null;
    } else {
      throw new TomlEditError(`${section.slice(0, section.indexOf(part) + 1).join('.')} is not a table`);
    }
  }
  return node;
}

/** Lines of the table's body: [first, end) indexes into `lines`, or null when the table has no header. */
function sectionRange(
  lines: readonly string[],
  section: readonly string[],
  name: string,
): { header: number; first: number; end: number } | null {
  const header = headerPattern(section);
  const found = lines.flatMap((line, i) => (header.test(line) ? [i] : []));
  if (found.length > 1) throw new TomlEditError(`${name}: [${section.join('.')}] appears ${found.length} times`);
  if (found.length === 0) return null;
  const start = found[0]!;
  let end = start + 1;
  while (end < lines.length && !anyHeader.test(lines[end]!)) end++;
  return { header: start, first: start + 1, end };
}

/** One line of TOML holding `key = value`. */
export function tomlLine(key: string, value: TomlScalar): string {
  return stringifyToml({ [key]: value }).trim();
}

function check(before: Table, text: string, name: string, expected: (doc: Table) => void): string {
  const after = parsed(text, name);
  expected(before);
  if (!isDeepStrictEqual(plain(before), plain(after))) {
    throw new TomlEditError(`${name}: the file's layout is not one meetctl can edit safely; edit it by hand`);
  }
  return text;
}

/**
 * Sets `values` in table `section` (e.g. ['modules', 'compat']). A key whose active line
 * already holds the value is left as it is (its comments too); a changed one is replaced in
 * place; a new one goes after its commented-out example (`# key = ...`) or at the table's
 * end; a missing table is appended. `suffix` is a comment written after each line meetctl writes.
 */
export function setSectionKeys(
  text: string,
  section: readonly string[],
  values: Readonly<Record<string, TomlScalar>>,
  name: string,
  suffix = '',
): string {
  const before = parsed(text, name);
  const current = tableAt(before, section, false);
  let lines = text.split('\n');
  let range = sectionRange(lines, section, name);
  if (range === null) {
    let body = text;
    if (body !== '' && !body.endsWith('\n')) body += '\n';
    if (body !== '' && !body.endsWith('\n\n')) body += '\n';
    lines = `${body}[${section.join('.')}]\n`.split('\n');
    range = { header: lines.length - 2, first: lines.length - 1, end: lines.length - 1 };
  }
  for (const [key, value] of Object.entries(values)) {
    if (current !== null && isDeepStrictEqual(plain(current[key]), plain(value))) continue;
    const line = `${tomlLine(key, value)}${suffix === '' ? '' : `  ${suffix}`}`;
    const inSection = (pattern: RegExp) => {
      for (let i = range!.first; i < range!.end; i++) if (pattern.test(lines[i]!)) return i;
      return -1;
    };
    const active = inSection(activeKeyLine(key));
    if (active >= 0) {
      lines[active] = line;
      continue;
    }
    const example = inSection(commentedKey(key));
    let at = example >= 0 ? example + 1 : range.end;
    if (example < 0) while (at > range.first && lines[at - 1]!.trim() === '') at--;
    lines.splice(at, 0, line);
    range = { ...range, end: range.end + 1 };
  }
  return check(before, lines.join('\n'), name, (doc) => Object.assign(tableAt(doc, section, true)!, values));
}

/** Removes the active lines of `keys` from table `section`; everything else stays as it was. */
export function removeSectionKeys(
  text: string,
  section: readonly string[],
  keys: readonly string[],
  name: string,
): string {
  const before = parsed(text, name);
  const lines = text.split('\n');
  const range = sectionRange(lines, section, name);
  if (range === null) return check(before, text, name, () => undefined);
  const drop = new Set<number>();
  for (let i = range.first; i < range.end; i++) if (keys.some((key) => activeKeyLine(key).test(lines[i]!))) drop.add(i);
  const result = lines.filter((_, i) => !drop.has(i)).join('\n');
  return check(before, result, name, (doc) => {
    const table = tableAt(doc, section, false);
    for (const key of keys) if (table) delete table[key];
  });
}

/** The value of `key` in table `section`, undefined when unset. */
export function sectionValue(text: string, section: readonly string[], key: string, name: string): unknown {
  return tableAt(parsed(text, name), section, false)?.[key];
}
