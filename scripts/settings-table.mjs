// The settings table of docs/configuration.md, rendered from src/config/settings.ts (through the
// build in dist/, so run `npm run build` first). Without an argument it prints the table; --write
// puts it in docs/configuration.md between its markers; --check exits 1 when that copy differs
// (the house test test/unit/house/settings-table.test.ts makes the same comparison).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const docFile = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
// A computed specifier: the script's tsconfig does not see dist/, whose types are src/'s.
const renderer = new URL('../dist/config/settings-table.js', import.meta.url).href;
/** @typedef {{ settingsTableBlock(): string, documentTableBlock(doc: string): string | null, withSettingsTable(doc: string): string }} Renderer */
const imported = /** @type {unknown} */ (await import(renderer));
const table = /** @type {Renderer} */ (imported);

const mode = process.argv[2];
if (mode === undefined) {
  process.stdout.write(`${table.settingsTableBlock()}\n`);
} else if (mode === '--write') {
  const doc = readFileSync(docFile, 'utf8');
  const next = table.withSettingsTable(doc);
  if (next !== doc) writeFileSync(docFile, next);
  process.stdout.write(
    next === doc
      ? 'docs/configuration.md: the settings table is up to date\n'
      : 'docs/configuration.md: the settings table was rewritten\n',
  );
} else if (mode === '--check') {
  const block = table.documentTableBlock(readFileSync(docFile, 'utf8'));
  if (block !== table.settingsTableBlock()) {
    process.stderr.write(
      'docs/configuration.md: the settings table differs from src/config/settings.ts; run npm run build && node scripts/settings-table.mjs --write\n',
    );
    process.exit(1);
  }
} else {
  process.stderr.write('usage: node scripts/settings-table.mjs [--write | --check]\n');
  process.exit(2);
}
