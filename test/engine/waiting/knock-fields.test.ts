import t from 'tap';
import { checkName, checkNote } from '../../../src/engine/waiting/knock-fields.js';

const invalid = (field: string) => ({ name: 'EngineError', code: 'invalid_field', field });

t.test('name: 1 to 64 characters, trimmed, no control characters', async (t) => {
  t.equal(checkName('  Ada  '), 'Ada');
  t.equal(checkName('x'.repeat(64)), 'x'.repeat(64));
  t.equal(checkName('🙂'.repeat(64)), '🙂'.repeat(64), 'counted in characters, not UTF-16 units');
  for (const bad of ['', '   ', 'x'.repeat(65), 'a\nb', 'a\u0000b', undefined, 42, null]) {
    t.throws(() => checkName(bad), invalid('name'), JSON.stringify(bad));
  }
});

t.test('note: optional, up to 280 characters, line breaks allowed', async (t) => {
  t.equal(checkNote(undefined), '');
  t.equal(checkNote(null), '');
  t.equal(checkNote('line one\nline two\tend'), 'line one\nline two\tend');
  t.equal(checkNote('n'.repeat(280)), 'n'.repeat(280));
  for (const bad of ['n'.repeat(281), 'bell\u0007', 7]) t.throws(() => checkNote(bad), invalid('note'), JSON.stringify(bad));
});

t.test('markup is kept as plain text', async (t) => {
  t.equal(checkName('<b>Bob</b>'), '<b>Bob</b>');
  t.equal(checkNote('<script>alert(1)</script> & "quotes"'), '<script>alert(1)</script> & "quotes"');
});
