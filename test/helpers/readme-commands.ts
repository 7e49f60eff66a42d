// The shell commands of a code block of the docs, as a test can run them: the block is read from
// docs/operating.md (the whole path) or README.md (the operator's five) itself, so what the docs
// tell an operator and what a test runs cannot drift.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const readmeFile = fileURLToPath(new URL('../../README.md', import.meta.url));
export const operatingFile = fileURLToPath(new URL('../../docs/operating.md', import.meta.url));
/** The heading of docs/operating.md's block from a fresh machine to a meeting over TLS. */
export const wholePathHeading = '## From a fresh machine to a meeting over TLS';
/** The heading of the README's short path, whose commands are some of the whole path's. */
export const operatorPathHeading = '## Operator path';

/** One command of the block: its words (quotes removed) and the text as the docs wrote it. */
export interface ReadmeCommand {
  readonly words: readonly string[];
  readonly text: string;
}

/** The first ```sh block after the heading `heading` (e.g. "## Operator path") of a Markdown text. */
export function shBlockUnder(markdown: string, heading: string): string {
  const start = markdown.split('\n').findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`no heading ${JSON.stringify(heading)}`);
  const rest = markdown.split('\n').slice(start + 1);
  const open = rest.findIndex((line) => line.trim() === '```sh');
  const nextHeading = rest.findIndex((line) => /^#{1,2} /.test(line));
  if (open < 0 || (nextHeading >= 0 && nextHeading < open)) throw new Error(`no sh block under ${heading}`);
  const close = rest.findIndex((line, i) => i > open && line.trim() === '```');
  return rest.slice(open + 1, close).join('\n');
}

/** Splits one line into words the way sh does for the simple words the docs use; anything else is refused. */
function wordsOf(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else if ('$`\\|;<>()*?'.includes(ch)) {
      // Expansions, pipes and redirections would need a shell: the walkthrough runs words.
      throw new Error(`command uses ${JSON.stringify(ch)}, which the walkthrough does not run: ${line}`);
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (quote !== null) throw new Error(`unclosed quote in a command of the docs: ${line}`);
  if (word !== null) words.push(word);
  return words;
}

/**
 * The commands of a block in order: continuation lines joined, comments dropped, and each
 * `&&` a command of its own (the docs count what the operator types, one program a time).
 */
export function commandsOf(block: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
    // A `#` starting a word begins a comment (none of the block's words contains one).
    const code = line.replace(/(^|\s)#.*$/, '').trim();
    if (code === '') continue;
    for (const part of code.split('&&')) {
      const text = part.trim();
      if (text === '') throw new Error(`empty command around && in: ${line}`);
      commands.push({ words: wordsOf(text), text });
    }
  }
  return commands;
}

/** docs/operating.md's whole path, from a fresh machine to a meeting over TLS. */
export function operatingCommands(doc = readFileSync(operatingFile, 'utf8')): ReadmeCommand[] {
  return commandsOf(shBlockUnder(doc, wholePathHeading));
}

/** The README's operator path. */
export function operatorPathCommands(readme = readFileSync(readmeFile, 'utf8')): ReadmeCommand[] {
  return commandsOf(shBlockUnder(readme, operatorPathHeading));
}
