import t from 'tap';
import { checkName, checkNote } from '../../../../src/engine/waiting/knock-fields.js';

const invalid = (field: string) => ({ name: 'EngineError', code: 'invalid_field', field });

t.test('name: 1 to 64 characters, trimmed, no control characters', async (t) => {
  t.equal(checkName('  Ada  '), 'Ada');
  t.equal(checkName('x'.repeat(64)), 'x'.repeat(64));
  t.equal(checkName('🙂'.repeat(64)), '🙂'.repeat(64), 'counted in characters, not UTF-16 units');
  for (const bad of ['', '   ', 'x'.repeat(65), 'a\nb', 'a\u0000b', undefined, 42, null]) {
    t.throws(() => checkName(bad), invalid('name'), JSON.stringify(bad));
  }
});

const hex = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase()}`;
const bidi = [...'\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069'];

t.test(
  'name: every bidi embedding, override and isolate control is refused; right-to-left names are not',
  async (t) => {
    for (const name of ['محمد عبد الله', 'דוד כהן', 'Sara سارا']) t.equal(checkName(name), name, name);
    for (const ch of bidi) {
      for (const name of [`Bob${ch}`, `${ch}Bob`, `Eve${ch}rotom`, `\u0645\u062D${ch}\u0645\u062F`]) {
        t.throws(() => checkName(name), invalid('name'), `${hex(ch)} in ${JSON.stringify(name)}`);
      }
    }
    t.throws(
      () => checkName('Eve\u202Egnp.exe'),
      { message: /invisible or text-direction characters \(found U\+202E\)/ },
      'the message names the character',
    );
  },
);

t.test('name: other invisible format characters and controls are refused', async (t) => {
  const cases: Record<string, string[]> = {
    'zero-width space, LRM, RLM': ['\u200B', '\u200E', '\u200F'],
    'word joiner and invisible operators': ['\u2060', '\u2061', '\u2062', '\u2063', '\u2064'],
    'byte order mark': ['\uFEFF'],
    'Arabic letter mark': ['\u061C'],
    'Mongolian vowel separator': ['\u180E'],
    'soft hyphen': ['\u00AD'],
    'tag characters': ['\u{E0000}', '\u{E0001}', '\u{E0041}', '\u{E007F}'],
    'interlinear annotation': ['\uFFF9', '\uFFFB'],
    'control characters': ['\u0000', '\u0007', '\u001B', '\u007F', '\u0085', '\u009B'],
    'line and paragraph separators': ['\u2028', '\u2029'],
    'blank-looking Hangul fillers': ['\u3164', '\u115F', '\uFFA0'],
  };
  for (const [what, chars] of Object.entries(cases)) {
    for (const ch of chars) t.throws(() => checkName(`Ad${ch}a`), invalid('name'), `${what}: ${hex(ch)}`);
  }
  t.throws(() => checkName('\u3164'), invalid('name'), 'a name that is only a filler');
  const ordinary = [
    'Zoë Ångström',
    'José Núñez-Iñárritu',
    'Łukasz Żółć',
    '山田 太郎',
    '李小龙',
    '김민준',
    'Ολυμπία',
    'Сергей Иванов',
    'अनुष्का शर्मा',
    'Nguyễn Thị Minh Khai',
    "O'Brien",
  ];
  for (const name of ordinary)
    t.equal(checkName(name), name, `${name}: accented, CJK, Hangul and Indic names are accepted as typed`);
});

t.test('name: ZWJ and ZWNJ only between two visible characters', async (t) => {
  const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
  t.equal(checkName(`Ada ${family}`), `Ada ${family}`, 'a family emoji (ZWJ sequence)');
  t.equal(
    checkName('Ada \u2764\uFE0F\u200D\u{1F525}'),
    'Ada \u2764\uFE0F\u200D\u{1F525}',
    'ZWJ after a variation selector',
  );
  t.equal(
    checkName('\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645'),
    '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
    'ZWNJ inside a Persian word',
  );
  t.equal(checkName('\u0915\u094D\u200D\u0937'), '\u0915\u094D\u200D\u0937', 'ZWJ inside a Devanagari conjunct');
  for (const bad of [
    'Ada\u200D',
    '\u200CAda',
    'Ada \u200D Lovelace',
    'A\u200D\u200Db',
    'A\u200D\u202Eb',
    'Ad\u200D\u200Ba',
  ]) {
    t.throws(() => checkName(bad), invalid('name'), JSON.stringify(bad));
  }
});

t.test('name: may not pass for the service or for a role', async (t) => {
  const impersonations = [
    'System',
    'system',
    'SYSTEM',
    ' System ',
    '\uFF33\uFF39\uFF33\uFF34\uFF25\uFF2D',
    '\uFF53\uFF59\uFF53\uFF54\uFF45\uFF4D',
    'System:',
    '[System]',
    'S y s t e m',
    'Bob (moderator)',
    'Bob (Moderator) ',
    'Bob (MODERATOR)',
    'Bob(moderator)',
    'Bob ( moderator )',
    'Bob (moderator).',
    'Bob \uFF08moderator\uFF09',
    'Eve (host)',
    'Eve (Host)',
    'Eve (co-host)',
    'Eve (admin)',
    'Eve (Administrator)',
    'Eve [moderator]',
    'Eve {host}',
    'Eve (presenter)',
    'Eve (system)',
    'Eve (\uFF48\uFF4F\uFF53\uFF54)',
    // Issue 28 point 4: anywhere in the name, not only at its end, and in the page's German too.
    '[Moderator] Eve',
    'Eve (Moderator) \u2713',
    'Eve (moderator) 2',
    'Ann (moderator) Smith',
    '(Host) Eve',
    'Eve (the host)',
    'Eve (Host, 2nd)',
    'Eve (Moderator',
    'Eve Moderator)',
    '<Admin> Eve',
    '\u3010Moderator\u3011 Eve',
    'Eve \uFF3BHost\uFF3D \u2713',
    'Eve (Moderatorin)',
    'Eve (Moderator*in)',
    'Eve (Moderation)',
    '[Gastgeberin] Eve',
    'Eve (Gastgeber:in) 2',
    'Eve (Veranstalter)',
    'Eve (Leitung) \u2713',
    'Eve (Referentin)',
    'Eve (PR\u00C4SENTATOR)',
  ];
  for (const name of impersonations) t.throws(() => checkName(name), invalid('name'), JSON.stringify(name));
  t.throws(() => checkName('System'), { message: /must not be "System"/ });
  t.throws(() => checkName('Bob (moderator)'), { message: /must not hold a role in brackets/ });
  for (const name of [
    'Systems Team',
    'Ecosystem',
    'Bob (Berlin)',
    'Bob (he/him)',
    'Eve (hostess)',
    'Moderator Mo',
    'Host Eve (2)',
    'Ann (Moderna team)',
  ]) {
    t.equal(checkName(name), name, `${name}: near misses are ordinary names`);
  }
});

t.test('note: optional, up to 280 characters, line breaks allowed', async (t) => {
  t.equal(checkNote(undefined), '');
  t.equal(checkNote(null), '');
  t.equal(checkNote('line one\nline two\tend'), 'line one\nline two\tend');
  t.equal(checkNote('n'.repeat(280)), 'n'.repeat(280));
  for (const bad of ['n'.repeat(281), 'bell\u0007', 7])
    t.throws(() => checkNote(bad), invalid('note'), JSON.stringify(bad));
});

t.test('note: no bidi controls or tag characters; marks and joiners of prose stay', async (t) => {
  for (const ch of [...bidi, '\u{E0041}']) t.throws(() => checkNote(`late ${ch}today`), invalid('note'), hex(ch));
  const prose = 'ساعت \u200E10:30\u200F \u0645\u06CC\u200C\u0622\u06CC\u0645 \u{1F468}\u200D\u{1F469}';
  t.equal(checkNote(prose), prose, 'LRM/RLM, ZWNJ and ZWJ in a note are kept');
});

t.test('markup is kept as plain text', async (t) => {
  t.equal(checkName('<b>Bob</b>'), '<b>Bob</b>');
  t.equal(checkNote('<script>alert(1)</script> & "quotes"'), '<script>alert(1)</script> & "quotes"');
});
