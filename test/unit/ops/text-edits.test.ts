// The two text editors install uses on the operator's files: one TOML table's keys and
// KEY=value lines. Everything they were not asked to change stays byte for byte, and a
// layout they cannot edit safely is refused rather than half-edited.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { checkEnvValue, EnvValueError, setEnvValues, unsetEnvValues } from '../../../src/ops/env-edit.js';
import { removeSectionKeys, sectionValue, setSectionKeys, TomlEditError } from '../../../src/ops/toml-section.js';

const section = ['modules', 'compat'];
const packaged = readFileSync(new URL('../../../room-defaults.toml', import.meta.url), 'utf8');

t.test('the packaged file: values go after their commented example and come out again', async (t) => {
  const set = setSectionKeys(
    packaged,
    section,
    { default_guest_policy: 'ASK_MODERATOR', default_record: true },
    'rd.toml',
    '# by install',
  );
  t.match(set, /^# default_record = false[^\n]*\ndefault_record = true  # by install$/m, 'after its example');
  t.match(set, /^# default_guest_policy = [^\n]*\ndefault_guest_policy = "ASK_MODERATOR"  # by install$/m);
  t.equal(sectionValue(set, section, 'default_guest_policy', 'rd.toml'), 'ASK_MODERATOR');
  const lines = (text: string) => text.split('\n');
  t.same(
    lines(set).filter((l) => !l.includes('# by install')),
    lines(packaged),
    'every other line kept',
  );
  t.equal(
    setSectionKeys(
      set,
      section,
      { default_guest_policy: 'ASK_MODERATOR', default_record: true },
      'rd.toml',
      '# by install',
    ),
    set,
    'the same values: the same bytes',
  );
  t.equal(
    removeSectionKeys(set, section, ['default_guest_policy', 'default_record'], 'rd.toml'),
    packaged,
    'removed: the packaged bytes again',
  );
});

t.test("an operator's own line: kept when it already says the value, replaced in place otherwise", async (t) => {
  const text =
    '# mine\n[service]\nlog_level = "debug" # keep\n\n[modules.compat]\ndefault_record = true   # we record\nhttp_addr = "127.0.0.1:8088"\n\n# trailing comment\n';
  t.equal(setSectionKeys(text, section, { default_record: true }, 'x'), text, 'same value: untouched, comment and all');
  const changed = setSectionKeys(text, section, { default_record: false, default_guest_policy: 'ALWAYS_DENY' }, 'x');
  t.equal(
    changed,
    '# mine\n[service]\nlog_level = "debug" # keep\n\n[modules.compat]\ndefault_record = false\nhttp_addr = "127.0.0.1:8088"\n\n# trailing comment\ndefault_guest_policy = "ALWAYS_DENY"\n',
    'replaced in place, the new key at the end of the table',
  );
});

t.test('a missing table is appended; CRLF files and an empty file work', async (t) => {
  t.equal(
    setSectionKeys('[service]\nlog_level = "info"', section, { default_record: false }, 'x'),
    '[service]\nlog_level = "info"\n\n[modules.compat]\ndefault_record = false\n',
  );
  t.equal(setSectionKeys('', section, { default_record: false }, 'x'), '[modules.compat]\ndefault_record = false\n');
  const crlf = '[modules.compat]\r\ndefault_record = true\r\nenabled = "auto"\r\n';
  const edited = setSectionKeys(crlf, section, { default_record: false }, 'x');
  t.equal(sectionValue(edited, section, 'default_record', 'x'), false);
  t.match(edited, /enabled = "auto"\r\n$/, 'other lines keep their CRLF');
});

t.test('layouts it cannot edit safely are refused, never half-edited', async (t) => {
  t.throws(
    () => setSectionKeys('[modules.compat\nx = 1\n', section, { default_record: false }, 'broken.toml'),
    TomlEditError,
    'malformed TOML',
  );
  t.throws(
    () =>
      setSectionKeys(
        '[modules]\ncompat = { default_record = true }\n',
        section,
        { default_record: false },
        'inline.toml',
      ),
    TomlEditError,
    'an inline table',
  );
  t.throws(
    () => setSectionKeys('[modules.compat]\n[modules.compat]\n', section, { default_record: false }, 'twice.toml'),
    TomlEditError,
    'the table twice',
  );
  // A multi-line array whose line starts with "[" looks like a header to a line scanner.
  const tricky = '[modules.compat]\ncallback_allow = [\n["a"][0],\n]\n';
  t.throws(() => setSectionKeys(tricky, section, { default_record: false }, 'tricky.toml'), TomlEditError);
});

t.test('env lines: set in place, examples filled, the rest kept', async (t) => {
  const text = '# head\nA=1\n# B=\nexport_me=2\nA=3\n';
  const set = setEnvValues(text, { A: 'x', B: 'y', C: 'z' });
  t.equal(
    set,
    '# head\nA=x\nB=y\nexport_me=2\nC=z\n',
    'A replaced (its later duplicate dropped), B fills its example, C appended',
  );
  t.equal(setEnvValues(set, { A: 'x', B: 'y', C: 'z' }), set, 'again: the same bytes');
  t.equal(setEnvValues('A = x\n', { A: 'x' }), 'A = x\n', 'a line already right is left alone');
  t.equal(unsetEnvValues(set, ['B', 'C']), '# head\nA=x\n# B=\nexport_me=2\n# C=\n');
  t.equal(
    setEnvValues(unsetEnvValues(set, ['B', 'C']), { B: 'y', C: 'z' }),
    set,
    'uninstall then install: the same layout',
  );
  t.equal(setEnvValues('A=1', { B: '2' }), 'A=1\nB=2\n', 'no final newline');
});

t.test('values an env file cannot carry the same way for systemd and compose are refused', async (t) => {
  for (const value of ['a\nB=evil', 'a"b', "a'b", 'a\\b', 'a$HOME', ' lead', 'trail ', 'a`b`']) {
    t.throws(() => checkEnvValue('X', value), EnvValueError, JSON.stringify(value));
  }
  t.throws(() => setEnvValues('', { 'BAD NAME': 'x' }), EnvValueError);
  t.doesNotThrow(() => checkEnvValue('X', '/var/lib/meet data/ü'), 'spaces inside and unicode are fine');
});
