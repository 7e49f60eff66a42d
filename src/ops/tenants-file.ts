import {
  parseRegistry,
  primaryTenantId,
  RegistryError,
  tenantIdPattern,
  type PreviousSecret,
  type Tenant,
  type TenantSnapshot,
} from '../compat/tenants/parse.js';

/**
 * Edits of the tenant registry's text (SERVICE_TENANTS_FILE), pure: the operator's comments,
 * blank lines and other tenants stay byte for byte. An edit touches one place (appends one
 * `[tenants.ID]` block, removes one block, or replaces one value inside one block) and the
 * whole new text is then parsed again with the daemon's own `parseRegistry` and compared with
 * the registry the edit was meant to give: anything else is refused, so a file meetctl cannot
 * edit safely is never written (and a broken one is never made worse).
 */

export type TenantKey = 'api_secret' | 'app_id' | 'app_secret';

/** The request is understood but cannot be done: a duplicate, a missing tenant, a file it cannot edit. */
export class TenantRefused extends Error {
  override readonly name = 'TenantRefused';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** What the primary tenant holds outside the file (COMPAT_* in the environment or the env file). */
export interface PrimaryCredentials {
  readonly apiSecret: string | null;
  readonly appId: string | null;
  readonly appSecret: string | null;
}

/** Why `id` cannot be a tenant id, or null when it can. */
export function tenantIdProblem(id: string): string | null {
  if (id === primaryTenantId)
    return `tenant id ${primaryTenantId} is reserved for COMPAT_API_SHARED_SECRET (the env file)`;
  if (!tenantIdPattern.test(id))
    return `tenant id ${JSON.stringify(id)} must be 1 to 64 characters of A-Z a-z 0-9 . _ - (starting with a letter or digit)`;
  return null;
}

/**
 * Why `value` cannot be written as a secret or app id, or null when it can. Values are
 * written as TOML basic strings without escapes, so quotes, backslashes and control
 * characters are refused rather than escaped: the file stays readable and no value can end
 * its string early.
 */
export function valueProblem(value: string): string | null {
  if (value.trim() === '') return 'must not be empty';
  if (value !== value.trim()) return 'must not start or end with white space';
  if (/[\p{Cc}\u2028\u2029]/u.test(value)) return 'must not contain control characters (newlines, tabs, escape codes)';
  if (/\p{Cf}/u.test(value)) return 'must not contain invisible formatting characters (zero-width, bidi controls)';
  if (/["\\]/.test(value)) return 'must not contain double quotes or backslashes';
  if (/\p{Cs}/u.test(value)) return 'must be valid Unicode (it holds a lone surrogate)';
  return null;
}

function basicString(value: string): string {
  const problem = valueProblem(value);
  if (problem !== null) throw new TenantRefused(`a value ${problem}`);
  return `"${value}"`;
}

/** `[tenants.ID]`, the id quoted when it holds a dot (a bare dot would nest tables). */
export function tenantHeader(id: string): string {
  return `[tenants.${/^[A-Za-z0-9_-]+$/.test(id) ? id : `"${id}"`}]`;
}

// ---------------------------------------------------------------- reading the text's lines

interface Line {
  /** The line without its end of line. */
  readonly body: string;
  readonly start: number;
  /** Offset after the end of line. */
  readonly end: number;
  /** The line begins inside a multi-line string: it is data, never a header or a key. */
  readonly inString: boolean;
}

/** Where a line ends a multi-line string that started before it, or opens one that goes on; the rest of the line is skipped. */
function scanLine(body: string, open: '"""' | "'''" | null): '"""' | "'''" | null {
  let i = 0;
  let state = open;
  while (i < body.length) {
    if (state !== null) {
      const close = body.indexOf(state, i);
      if (state === '"""') {
        // a closing """ must not be escaped
        let at = close;
        while (at >= 0) {
          let slashes = 0;
          for (let k = at - 1; k >= 0 && body[k] === '\\'; k--) slashes++;
          if (slashes % 2 === 0) break;
          at = body.indexOf(state, at + 1);
        }
        if (at < 0) return state;
        i = at + 3;
      } else {
        if (close < 0) return state;
        i = close + 3;
      }
      while (body[i] === state[0]) i++; // up to two quotes may end the string's content
      state = null;
      continue;
    }
    const c = body[i]!;
    if (c === '#') return null;
    if (body.startsWith('"""', i) || body.startsWith("'''", i)) {
      state = body.slice(i, i + 3) as '"""' | "'''";
      i += 3;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < body.length && body[i] !== '"') i += body[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === "'") {
      const close = body.indexOf("'", i + 1);
      i = close < 0 ? body.length : close + 1;
      continue;
    }
    i++;
  }
  return state;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let open: '"""' | "'''" | null = null;
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline + 1;
    const body = text.slice(start, newline < 0 ? text.length : newline).replace(/\r$/, '');
    lines.push({ body, start, end, inString: open !== null });
    open = scanLine(body, open);
    start = end;
  }
  return lines;
}

/** The parts of a dotted key such as `tenants."a.b"`, or null when it is not one meetctl reads. */
function dottedKey(text: string): string[] | null {
  const parts: string[] = [];
  let rest = text.trim();
  for (;;) {
    let match: RegExpExecArray | null;
    if ((match = /^[A-Za-z0-9_-]+/.exec(rest))) parts.push(match[0]);
    else if ((match = /^"([^"\\\p{Cc}]*)"/u.exec(rest))) parts.push(match[1]!);
    else if ((match = /^'([^'\p{Cc}]*)'/u.exec(rest))) parts.push(match[1]!);
    else return null;
    rest = rest.slice(match[0].length).trimStart();
    if (rest === '') return parts;
    if (!rest.startsWith('.')) return null;
    rest = rest.slice(1).trimStart();
  }
}

const headerPattern = /^\s*\[(\[)?([^\]#]*)\](\])?\s*(#.*)?$/;

/** The table a header line opens (`[a.b]` or `[[a.b]]`), null when the line is no header. */
function headerOf(line: Line): string[] | null | 'unreadable' {
  if (line.inString || !/^\s*\[/.test(line.body)) return null;
  const match = headerPattern.exec(line.body);
  if (!match) return 'unreadable';
  return dottedKey(match[2]!) ?? 'unreadable';
}

const blankOrComment = (line: Line) => !line.inString && /^\s*(#.*)?$/.test(line.body);

/** Lines [from, to) of the tenant's block: its header up to its last line that is not blank or a comment. */
function blockOf(lines: readonly Line[], id: string, file: string): { from: number; to: number } {
  const found: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const key = headerOf(lines[i]!);
    if (Array.isArray(key) && key.length === 2 && key[0] === 'tenants' && key[1] === id) found.push(i);
  }
  if (found.length !== 1) {
    throw new TenantRefused(
      `tenant ${id} is not written as one [tenants.${id}] table in ${file}, so meetctl cannot edit it safely`,
      `edit ${file} by hand, or rewrite that tenant as a [tenants.${id}] table with its keys below it`,
    );
  }
  const from = found[0]!;
  let to = from + 1;
  while (to < lines.length && headerOf(lines[to]!) === null) to++;
  // Comments and blank lines before the next table describe that table (or close the file): they stay.
  while (to > from + 1 && blankOrComment(lines[to - 1]!)) to--;
  return { from, to };
}

// ---------------------------------------------------------------- the edits

function endOfLine(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** The block `tenant add` appends. */
export function tenantBlock(tenant: Tenant, eol = '\n'): string {
  const lines = [tenantHeader(tenant.id)];
  if (tenant.apiSecret !== null) lines.push(`api_secret = ${basicString(tenant.apiSecret)}`);
  if (tenant.appId !== null) lines.push(`app_id = ${basicString(tenant.appId)}`);
  if (tenant.appSecret !== null) lines.push(`app_secret = ${basicString(tenant.appSecret)}`);
  if (tenant.authenticatedGuest !== undefined) lines.push(`authenticated_guest = ${tenant.authenticatedGuest}`);
  return lines.join(eol) + eol;
}

/** The text with `tenant` appended as a new block after everything else. */
export function appendTenantText(text: string, tenant: Tenant): string {
  const eol = endOfLine(text);
  let before = text;
  if (before !== '' && !before.endsWith('\n')) before += eol;
  if (before.trim() !== '') before += eol; // one blank line between blocks
  return before + tenantBlock(tenant, eol);
}

/** The text without the tenant's block (the header and its keys); one blank line of the gap goes with it. */
export function removeTenantText(text: string, id: string, file: string): string {
  const lines = linesOf(text);
  const { from, to } = blockOf(lines, id, file);
  let start = lines[from]!.start;
  let end = lines[to - 1]!.end;
  // Take one blank line along so removals do not pile up empty lines.
  if (to < lines.length && /^\s*$/.test(lines[to]!.body)) end = lines[to]!.end;
  else if (from > 0 && /^\s*$/.test(lines[from - 1]!.body) && !lines[from - 1]!.inString)
    start = lines[from - 1]!.start;
  return text.slice(0, start) + text.slice(end);
}

const valuePattern = /^("(?:[^"\\]|\\.)*"|'[^']*')(\s*(?:#.*)?)$/;

/** The text with one key's value inside the tenant's block replaced; the key's name, spacing and comment stay. */
export function setTenantValueText(text: string, id: string, key: TenantKey, value: string, file: string): string {
  const lines = linesOf(text);
  const { from, to } = blockOf(lines, id, file);
  const keyPattern = new RegExp(`^(\\s*(?:${key}|"${key}"|'${key}')\\s*=\\s*)(.*)$`);
  for (let i = from + 1; i < to; i++) {
    const line = lines[i]!;
    if (line.inString) continue;
    const match = keyPattern.exec(line.body);
    if (!match) continue;
    const current = valuePattern.exec(match[2]!);
    if (!current || current[1]!.startsWith('"""') || current[1]!.startsWith("'''")) {
      throw new TenantRefused(
        `tenants.${id}.${key} in ${file} is not a one-line string, so meetctl cannot replace it safely`,
        `edit ${file} by hand`,
      );
    }
    const bodyStart = line.start;
    const valueStart = bodyStart + match[1]!.length;
    const valueEnd = valueStart + current[1]!.length;
    return text.slice(0, valueStart) + basicString(value) + text.slice(valueEnd);
  }
  throw new TenantRefused(`tenants.${id} in ${file} has no ${key} line meetctl can replace`, `edit ${file} by hand`);
}

/** `2026-11-28T09:25:00Z`: a TOML offset date-time, to the second. */
export function untilText(until: number): string {
  return new Date(until).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The text with the tenant's `previous_{kind}_secret` and its `_until` replaced by `previous`
 * (two lines at the end of its block), or removed when `previous` is null. Other lines stay.
 */
export function setPreviousText(
  text: string,
  id: string,
  kind: 'api' | 'app',
  previous: PreviousSecret | null,
  file: string,
): string {
  const key = `previous_${kind}_secret`;
  const lines = linesOf(text);
  const { from, to } = blockOf(lines, id, file);
  const keyPattern = new RegExp(`^\\s*(?:${key}|"${key}"|'${key}'|${key}_until|"${key}_until"|'${key}_until')\\s*=`);
  const drop: number[] = [];
  for (let i = from + 1; i < to; i++) {
    const line = lines[i]!;
    if (line.inString || !keyPattern.test(line.body)) continue;
    if (lines[i + 1]?.inString)
      throw new TenantRefused(
        `tenants.${id}.${key} in ${file} is not a one-line value, so meetctl cannot replace it safely`,
        `edit ${file} by hand`,
      );
    drop.push(i);
  }
  const eol = endOfLine(text);
  let insert = '';
  if (previous !== null)
    insert = `${key} = ${basicString(previous.secret)}${eol}${key}_until = ${untilText(previous.until)}${eol}`;
  const last = lines[to - 1]!;
  if (insert !== '' && !text.slice(last.start, last.end).endsWith('\n')) insert = eol + insert;
  let out = text.slice(0, last.end) + insert + text.slice(last.end);
  for (const i of drop.reverse()) out = out.slice(0, lines[i]!.start) + out.slice(lines[i]!.end);
  return out;
}

/**
 * The text with the tenant's `authenticated_guest` line (one line, at the end of its block)
 * set to `value`, or removed when `value` is null (the setting's value applies again).
 */
export function setAuthenticatedGuestText(text: string, id: string, value: boolean | null, file: string): string {
  const lines = linesOf(text);
  const { from, to } = blockOf(lines, id, file);
  const keyPattern = /^\s*(?:authenticated_guest|"authenticated_guest"|'authenticated_guest')\s*=/;
  const drop: number[] = [];
  for (let i = from + 1; i < to; i++) if (!lines[i]!.inString && keyPattern.test(lines[i]!.body)) drop.push(i);
  const eol = endOfLine(text);
  let insert = value === null ? '' : `authenticated_guest = ${value}${eol}`;
  const last = lines[to - 1]!;
  if (insert !== '' && !text.slice(last.start, last.end).endsWith('\n')) insert = eol + insert;
  let out = text.slice(0, last.end) + insert + text.slice(last.end);
  for (const i of drop.reverse()) out = out.slice(0, lines[i]!.start) + out.slice(lines[i]!.end);
  return out;
}

// ---------------------------------------------------------------- checks

function samePrevious(a: PreviousSecret | undefined, b: PreviousSecret | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.secret === b.secret && a.until === b.until;
}

function sameTenant(a: Tenant, b: Tenant): boolean {
  return (
    a.id === b.id &&
    a.apiSecret === b.apiSecret &&
    a.appId === b.appId &&
    a.appSecret === b.appSecret &&
    samePrevious(a.previousApiSecret, b.previousApiSecret) &&
    samePrevious(a.previousAppSecret, b.previousAppSecret) &&
    a.authenticatedGuest === b.authenticatedGuest
  );
}

/** Tenants of the file, the primary one left out. */
export function fileTenants(snapshot: TenantSnapshot): Tenant[] {
  return snapshot.tenants.filter((t) => t.id !== primaryTenantId);
}

/**
 * Parses the edited text and makes sure it holds exactly `expected` (the file's tenants in
 * order). Throws RegistryError when the daemon would refuse the text, TenantRefused when it
 * parses into something else than intended.
 */
export function checkEdit(
  text: string,
  primary: PrimaryCredentials,
  expected: readonly Tenant[],
  file: string,
): TenantSnapshot {
  const snapshot = parseRegistry(text, primary.apiSecret, primary.appId);
  const got = fileTenants(snapshot);
  if (got.length !== expected.length || got.some((t, i) => !sameTenant(t, expected[i]!))) {
    throw new TenantRefused(
      `the edit of ${file} did not give the intended registry, so nothing was written`,
      `edit ${file} by hand`,
    );
  }
  return snapshot;
}

/** Who already uses `value` as an api secret, app id or app secret (the primary tenant included), or null. */
export function holderOf(
  value: string,
  snapshot: TenantSnapshot,
  primary: PrimaryCredentials,
  except?: { id: string; key: TenantKey },
): string | null {
  const owners: [string, string, string | null][] = [
    [primaryTenantId, 'api_secret', primary.apiSecret],
    [primaryTenantId, 'app_id', primary.appId],
    [primaryTenantId, 'app_secret', primary.appSecret],
  ];
  for (const t of fileTenants(snapshot)) {
    owners.push([t.id, 'api_secret', t.apiSecret], [t.id, 'app_id', t.appId], [t.id, 'app_secret', t.appSecret]);
    // A rotated-out secret may still be in its grace, and stays in the file after: never hand it out again.
    owners.push(
      [t.id, 'previous_api_secret', t.previousApiSecret?.secret ?? null],
      [t.id, 'previous_app_secret', t.previousAppSecret?.secret ?? null],
    );
  }
  for (const [id, key, held] of owners) {
    if (held === null || held !== value) continue;
    if (except && except.id === id && except.key === key) continue;
    return `${id === primaryTenantId ? 'the primary tenant' : `tenant ${id}`} (${key})`;
  }
  return null;
}

export { RegistryError };
