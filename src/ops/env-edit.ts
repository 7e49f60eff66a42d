import { activeKeyLine, escapeRegExp } from './key-lines.js';

/**
 * Edits KEY=value lines of an environment file (see env-file.ts) as text: the operator's
 * other lines and comments stay byte for byte, and a value that is already right leaves its
 * line untouched, so a second run writes the same bytes.
 */

export class EnvValueError extends Error {
  override readonly name = 'EnvValueError';
}

const commentedLine = (name: string) => new RegExp(`^\\s*#\\s*${escapeRegExp(name)}\\s*=\\s*\\r?$`);

/**
 * A value systemd's EnvironmentFile= and compose's env_file read the same way as a shell
 * would: no line breaks, quotes, backslashes or dollar signs (each of them is interpreted by
 * one reader and not the other), no white space at either end.
 */
export function checkEnvValue(name: string, value: string): void {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) throw new EnvValueError(`${name} is not an environment variable name`);
  if (/[\r\n\0"'\\$`]/.test(value))
    throw new EnvValueError(
      `${name} holds a line break, quote, backslash or $, which an environment file cannot carry the same way for systemd and compose`,
    );
  if (value !== value.trim()) throw new EnvValueError(`${name} starts or ends with white space`);
}

/**
 * Sets each NAME=value: an active line is replaced in place (left alone when it already
 * holds the value); else an empty commented example (`# NAME=`) becomes the line; else the
 * line is appended.
 */
export function setEnvValues(text: string, values: Readonly<Record<string, string>>): string {
  const lines = text.split('\n');
  for (const [name, value] of Object.entries(values)) {
    checkEnvValue(name, value);
    const line = `${name}=${value}`;
    const active = lines.findIndex((l) => activeKeyLine(name).test(l));
    if (active >= 0) {
      const current = lines[active]!;
      if (current.slice(current.indexOf('=') + 1).trim() !== value) lines[active] = line;
      // Later duplicates would win in systemd; they go, so the file says one thing.
      for (let i = lines.length - 1; i > active; i--) if (activeKeyLine(name).test(lines[i]!)) lines.splice(i, 1);
      continue;
    }
    const example = lines.findIndex((l) => commentedLine(name).test(l));
    if (example >= 0) {
      lines[example] = line;
      continue;
    }
    if (lines[lines.length - 1] === '') lines.splice(lines.length - 1, 0, line);
    else lines.push(line, '');
  }
  return lines.join('\n');
}

/** Turns each active NAME=... line into the empty example `# NAME=`, so a later install puts its line back in the same place. */
export function unsetEnvValues(text: string, names: readonly string[]): string {
  const lines = text.split('\n');
  const seen = new Set<string>();
  const result: string[] = [];
  for (const line of lines) {
    const name = names.find((n) => activeKeyLine(n).test(line));
    if (name === undefined) {
      result.push(line);
    } else if (!seen.has(name)) {
      seen.add(name);
      result.push(`# ${name}=`);
    }
  }
  return result.join('\n');
}
