// Issue 17, point 8: one catalogue per language, the same keys and placeholders in each.
import t from 'tap';
import { chooseLanguage, fill, languages, placeholders } from '../../../src/web/words/choose.js';
import { de } from '../../../src/web/words/de.js';
import { en } from '../../../src/web/words/en.js';

type Tree = { readonly [key: string]: string | Tree };

/** Every text of a catalogue by its dotted key. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

const catalogues = { en: flatten(en), de: flatten(de) } as const;

t.test('English and German have exactly the same keys', async (t) => {
  t.same([...catalogues.de.keys()].sort(), [...catalogues.en.keys()].sort());
  t.ok(catalogues.en.size > 150, `${catalogues.en.size} texts`);
  t.same(languages, ['en', 'de'], 'the languages shipped, English first (the fallback)');
});

t.test('no text is empty, and every key has the same placeholders in both languages', async (t) => {
  for (const [lang, texts] of Object.entries(catalogues)) {
    const empty = [...texts].filter(([, text]) => text.trim() === '').map(([key]) => key);
    t.same(empty, [], `${lang}: no empty text`);
  }
  const differ = [...catalogues.en]
    .filter(([key, text]) => placeholders(text).join() !== placeholders(catalogues.de.get(key) ?? '').join())
    .map(([key, text]) => `${key}: en {${placeholders(text).join('}, {')}} de ${catalogues.de.get(key)}`);
  t.same(differ, [], 'same placeholders per key');
  t.ok(
    [...catalogues.en.values()].some((text) => placeholders(text).length > 0),
    'the check has placeholders to compare',
  );
});

t.test('German is a translation, not a copy of the English', async (t) => {
  // A few words may be the same in both (Chat, Moderation, System); whole sentences may not.
  const copied = [...catalogues.en]
    .filter(([key, text]) => text.includes(' ') && catalogues.de.get(key) === text)
    .map(([key]) => key);
  t.same(copied, [], 'no sentence left in English');
  t.equal(de.waiting.ask, 'Um Teilnahme bitten');
  t.equal(de.waitingList.admit, 'Zulassen');
  t.equal(de.waitingList.refuse, 'Ablehnen');
  t.equal(de.toolbar.mute, 'Mikrofon stummschalten');
});

t.test('the language: ?lang= first, then the browser languages in order, else English', async (t) => {
  t.equal(chooseLanguage('de', ['en-US']), 'de', 'the address wins over the browser');
  t.equal(chooseLanguage('DE-at', []), 'de', 'a region or another case is the same language');
  t.equal(chooseLanguage('en', ['de-DE']), 'en', 'English asked for in the address');
  t.equal(chooseLanguage(null, ['de-DE', 'en']), 'de', "the browser's first language");
  t.equal(chooseLanguage(null, ['fr-FR', 'de', 'en']), 'de', 'the first one shipped');
  t.equal(chooseLanguage('fr', ['fr-FR']), 'en', 'nothing shipped: English');
  t.equal(chooseLanguage('', []), 'en', 'no preference at all: English');
  t.equal(chooseLanguage('<script>', ['de']), 'de', 'a parameter that is no language is ignored');
});

t.test('placeholders are filled, and a missing value stays visible', async (t) => {
  t.equal(fill(en.waitingList.admitName, { name: 'Ann' }), 'Admit Ann');
  t.equal(fill(de.waitingList.manyWant, { count: 3 }), '3 Personen möchten teilnehmen');
  t.equal(fill('{a} and {b}', { a: '{b}' }), '{b} and {b}', 'a value is not filled again');
  t.equal(fill(en.meeting.joined, {}), '{name} joined');
});

// Issue 31 point 9: German wording a teacher reported.
t.test('German: the role noun on the badge, German word order, no "…" that wraps alone, "Ein:" for on', async (t) => {
  t.equal(de.people.moderator, 'Moderator/in', 'the badge names the role, not the activity ("Moderation")');
  t.equal(fill(de.arrival.joiningAs, { name: 'Frau Keller' }), 'Sie nehmen als Frau Keller teil');
  const wraps = [...catalogues.de].filter(([, text]) => / …/.test(text)).map(([key]) => key);
  t.same(wraps, [], 'no breaking space before an ellipsis (a no-break space keeps it with its word)');
  t.match(de.waitingList.switchOn, /^Ein: /, 'a switch is "Ein"/"Aus" in German, not "An"');
  t.match(de.waitingList.switchOff, /^Aus: /);
});
