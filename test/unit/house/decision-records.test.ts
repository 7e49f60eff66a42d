// Issue 30 point 2: the architecture decisions are records in docs/decisions/, one short file per
// decision with its context, choice and consequence, each listed in the folder's index, so a
// newcomer finds why the tree is as it is without reading the whole architecture page.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const folder = fileURLToPath(new URL('../../../docs/decisions/', import.meta.url));
const records = readdirSync(folder)
  .filter((f) => /^\d{4}-[a-z0-9-]+\.md$/.test(f))
  .sort();
const index = readFileSync(`${folder}README.md`, 'utf8');

/** The decisions the issue names as already made: each has its record (matched in the record's title). */
const made = [/SQLite/, /ports/, /error table/, /waiting room/i, /compat/i, /Janus/, /nginx/, /framework/];

t.test('every record is short and says context, choice and consequence', async (t) => {
  t.ok(records.length >= made.length, `${records.length} records`);
  for (const [i, file] of records.entries()) {
    const text = readFileSync(`${folder}${file}`, 'utf8');
    const number = file.slice(0, 4);
    t.equal(number, String(i + 1).padStart(4, '0'), `${file}: numbered in order, without gaps`);
    t.match(text.split('\n')[0], new RegExp(`^# ${number}: \\S`), `${file}: its title is "# ${number}: ..."`);
    for (const part of ['**Context.**', '**Choice.**', '**Consequence.**'])
      t.ok(text.includes(part), `${file} has ${part}`);
    t.ok(text.split('\n').length <= 40, `${file} is short (${text.split('\n').length} lines)`);
    t.ok(index.includes(`](${file})`), `${file} is listed in docs/decisions/README.md`);
  }
});

t.test('the big decisions already made each have their record', async (t) => {
  const titles = records.map((f) => readFileSync(`${folder}${f}`, 'utf8').split('\n')[0] ?? '');
  for (const decision of made)
    t.ok(
      titles.some((title) => decision.test(title)),
      `a record whose title matches ${String(decision)}`,
    );
});
