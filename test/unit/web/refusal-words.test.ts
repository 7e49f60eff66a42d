// Issue 29 point 15: nginx's room limit answers JSON (code too_many_requests, Retry-After);
// the arrival page says what happened and when to try again, not "something went wrong".
import t from 'tap';

const page = globalThis as unknown as Record<string, unknown>;
page.location = { search: '?lang=en' };
if (!('navigator' in globalThis)) page.navigator = { languages: ['en'], language: 'en' };
const { describe } = await import('../../../src/web/arrival.js');
const { en } = await import('../../../src/web/words/en.js');

t.test("nginx's 429 reads as a limit with its wait, not as an unexpected fault", async (t) => {
  const said = describe('too_many_requests', { retryAfter: 7 });
  t.not(said, en.errors.unexpected);
  t.match(said, /7 seconds/);
  t.equal(describe('no_such_code'), en.errors.unexpected, 'an unknown code still reads as unexpected');
});
