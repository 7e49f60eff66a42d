import t from 'tap';
import { renderTemplate } from '../../../src/ops/template.js';

t.test('fills every placeholder, spaces inside braces allowed, repeated ones too', async (t) => {
  t.equal(
    renderTemplate('a={{a}} b={{ b }} a={{a}}', { a: '1', b: '$x {y}' }),
    'a=1 b=$x {y} a=1',
    'values are inserted as they are',
  );
});

t.test('an unfilled placeholder or an unused value is an error naming them', async (t) => {
  t.throws(() => renderTemplate('{{a}} {{b}}', { a: '1' }, 'meet.service'), /meet\.service: no value for b/);
  t.throws(() => renderTemplate('{{a}}', { a: '1', c: '2' }), /no placeholder for c/);
  t.equal(renderTemplate('${HOME} {not} {{ }}', {}), '${HOME} {not} {{ }}', 'other braces are left alone');
});

t.test('a value holding a placeholder is not expanded again', async (t) => {
  t.equal(renderTemplate('{{a}}', { a: '{{a}}' }), '{{a}}');
});
