// Issue 11 point 9: the meeting API's fullName is cleaned by the same rule a typed name obeys.
import t from 'tap';
import { cleanName, nameProblem } from '../../../src/engine/display-name.js';

t.test('cleanName removes what a typed name may not contain, and keeps the rest', async (t) => {
  t.equal(cleanName('Eve\u202Egnp.exe', 64), 'Evegnp.exe', 'a right-to-left override is removed');
  t.equal(
    cleanName('\u2066Bob\u2069 \u200B(\u200Eteacher)\u00AD', 64),
    'Bob (teacher)',
    'isolates, zero-width space, LRM, soft hyphen',
  );
  t.equal(cleanName('A\u{E0041}\u{E0042}da', 64), 'Ada', 'tag characters');
  t.equal(cleanName('Ada\u0000\nLovelace\u2028 ', 64), 'Ada Lovelace', 'controls and separators become one space');
  t.equal(
    cleanName('\u200DAda \u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D', 64),
    'Ada \u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
    'joiners kept only between visible characters',
  );
  t.equal(
    cleanName(`${'x'.repeat(63)}\u{1F468}\u200D\u{1F469}`, 64),
    `${'x'.repeat(63)}\u{1F468}`,
    'a cut never leaves a joiner at the end',
  );
  t.equal(cleanName('\u202E\u200B', 64), '', 'nothing visible: empty');
  for (const raw of ['Eve\u202Egnp.exe', 'A\u{E0041}da', 'x'.repeat(70), ' \u2066Bob\u2069 ']) {
    t.equal(nameProblem(cleanName(raw, 64)), null, `${JSON.stringify(raw)} cleans to an acceptable name`);
  }
});

t.test('a name that cleans to an impersonation is still one (the caller refuses it)', async (t) => {
  t.same(nameProblem(cleanName('Sys\u200Btem', 64)), { kind: 'impersonates_system' });
  t.same(nameProblem(cleanName('Bob (\u202Emoderator)', 64)), { kind: 'role_in_brackets' });
  t.same(nameProblem(cleanName('[\u200BModerator] Eve', 64)), { kind: 'role_in_brackets' }, 'at the start too');
});
