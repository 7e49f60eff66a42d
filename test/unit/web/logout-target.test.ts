// Issue 33 point 6 on the page: the join link's logoutURL is where she goes after leaving, only
// when it is an http(s) URL.
import t from 'tap';
import { logoutTarget } from '../../../src/web/logout-target.js';

t.test('only an http(s) logoutURL is followed', async (t) => {
  const search = (url: string) => `?t=abc&${new URLSearchParams([['logoutURL', url]]).toString()}`;
  t.equal(logoutTarget(search('https://lms.example.org/course?id=7')), 'https://lms.example.org/course?id=7');
  t.equal(logoutTarget(search('http://lms.example.org/')), 'http://lms.example.org/');
  t.equal(logoutTarget(search('javascript:alert(1)')), null, 'no script');
  t.equal(logoutTarget(search('data:text/html,hi')), null);
  t.equal(logoutTarget(search('/relative')), null, 'not a URL on its own');
  t.equal(logoutTarget('?t=abc'), null, 'none given');
  t.equal(logoutTarget(search(`https://lms.example.org/${'x'.repeat(2100)}`)), null, 'too long');
});
