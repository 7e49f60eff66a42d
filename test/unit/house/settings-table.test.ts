// Issue 30 point 2: the Configuration table of docs/configuration.md is rendered from
// src/config/settings.ts (scripts/settings-table.mjs --write), so a setting added, renamed or
// re-described there and not in the document fails here instead of leaving the docs quietly wrong.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { settings } from '../../../src/config/settings.js';
import {
  documentTableBlock,
  settingsTableBlock,
  settingsTableLines,
  withSettingsTable,
} from '../../../src/config/settings-table.js';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/configuration.md', import.meta.url)), 'utf8');
const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

t.test("docs/configuration.md's settings table is exactly the one rendered from settings.ts", async (t) => {
  const block = documentTableBlock(doc);
  t.not(block, null, 'the document has the start and end markers of the generated table');
  // Line by line, so a failure names the row that differs rather than one long string.
  t.same(
    block?.split('\n'),
    settingsTableBlock().split('\n'),
    'run npm run build && node scripts/settings-table.mjs --write',
  );
});

t.test('the table lives in one place: the README links to it and holds no copy', async (t) => {
  t.equal(documentTableBlock(readme), null, 'no generated table in README.md');
  t.notMatch(readme, /^\| `SERVICE_HTTP_ADDR` \|/m, 'no row of it either');
  t.match(readme, '](docs/configuration.md)', 'the README links to docs/configuration.md');
});

t.test('every setting has its row, and the table is a well-formed five-column table', async (t) => {
  const lines = settingsTableLines();
  for (const row of Object.values(settings)) {
    t.equal(lines.filter((l) => l.startsWith(`| \`${row.env}\` |`)).length, 1, `${row.env} has one row`);
  }
  // Five cells: an unescaped | inside a description would split it into more.
  const cells = lines.map((l) => l.split(/(?<!\\)\|/).length - 2);
  t.same([...new Set(cells)], [5]);
});

t.test('a description changed in settings.ts is a document that no longer matches', async (t) => {
  const stale = doc.replace(settings.httpAddr.description, 'Engine listener of old');
  t.not(documentTableBlock(stale), settingsTableBlock());
  t.equal(withSettingsTable(stale), doc, 'the script rewrites it back');
});
