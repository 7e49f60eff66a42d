// Issue 5 point 2: the checksum over the raw query, as every real client signs it, and
// everything that must fail with checksumError. Unit cases first, then a real daemon.
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { checksumMatches, checksumOf } from '../../../src/compat/confapi/checksum.js';
import { readQuery } from '../../../src/compat/confapi/query.js';
import {
  assertFailed,
  assertSuccess,
  buildQuery,
  ConfapiClient,
  fetchAnswer,
  sign,
  type Algorithm,
  type Style,
} from '../../helpers/compat.js';

const secret = '639259d4-9dd8-4b25-bf01-95f9567eaf4b';

t.test('unit: raw query handling and the algorithm by length', async (t) => {
  const signed = (raw: string) => readQuery(raw).signed;
  t.equal(signed('a=1&checksum=x&b=2'), 'a=1&b=2', 'middle');
  t.equal(signed('checksum=x&a=1'), 'a=1', 'first');
  t.equal(signed('a=1&checksum=x'), 'a=1', 'last');
  t.equal(signed('&checksum=x'), '', 'leading & with no parameters');
  t.equal(signed('a=b+c&d=%20e&checksum=x'), 'a=b+c&d=%20e', 'nothing decoded or re-encoded');
  t.equal(signed('xchecksum=1&a=2'), 'xchecksum=1&a=2', 'only the checksum pair itself');
  // The algorithm is chosen by the checksum's length; anything else of that length never matches.
  for (const algorithm of ['sha1', 'sha256', 'sha384', 'sha512']) {
    const good = checksumOf(algorithm, 'create', 'a=1', secret);
    t.ok(checksumMatches(good, 'create', ['a=1'], secret), `${algorithm} (${good.length} hex digits)`);
    t.ok(checksumMatches(good.toUpperCase(), 'create', ['a=1'], secret), `${algorithm} in uppercase`);
    t.notOk(
      checksumMatches(`${good.slice(0, -1)}g`, 'create', ['a=1'], secret),
      `${algorithm} with a character that is not hex`,
    );
    t.notOk(checksumMatches(good.slice(0, -1), 'create', ['a=1'], secret), `${algorithm} one digit short`);
    t.notOk(checksumMatches(`${good}0`, 'create', ['a=1'], secret), `${algorithm} one digit long`);
  }
  t.notOk(checksumMatches('', 'create', ['a=1'], secret), 'an empty checksum');
  // The upstream documentation's example.
  const docQuery = 'name=Test+Meeting&meetingID=abc123&attendeePW=111222&moderatorPW=333444';
  t.ok(
    checksumMatches('1fcbb0c4fc1f039f73aa6d697d2db9ba7f803f17', 'create', [docQuery], secret),
    'the documented SHA-1 example verifies',
  );
  t.ok(checksumMatches('1FCBB0C4FC1F039F73AA6D697D2DB9BA7F803F17', 'create', [docQuery], secret), 'uppercase hex too');
  t.notOk(
    checksumMatches('1fcbb0c4fc1f039f73aa6d697d2db9ba7f803f17', 'create', [docQuery.replace('+', '%20')], secret),
    '%20 instead of + is another string',
  );
});

t.test('a real daemon', async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret } });
  const base = new ConfapiClient(d.compatUrl, secret);

  t.test('every algorithm × every client style verifies; uppercase hex too', async (t) => {
    const algorithms: Algorithm[] = ['sha1', 'sha256', 'sha384', 'sha512'];
    const styles: Style[] = ['plus', 'percent', 'sorted'];
    for (const algorithm of algorithms) {
      for (const style of styles) {
        const client = base.with({ algorithm, style });
        const id = `sig ${algorithm} ${style}`;
        const created = await client.get('create', [
          ['name', 'Room with spaces & (parens) *~'],
          ['meetingID', id],
          ['record', 'false'],
        ]);
        assertSuccess(t, created, `${algorithm}/${style}`);
        t.equal(created.xml?.meetingID, id, `${algorithm}/${style}: meetingID decoded`);
      }
      const query = buildQuery([['meetingID', `sig ${algorithm} plus`]], 'plus');
      const upper = sign('isMeetingRunning', query, secret, algorithm).toUpperCase();
      assertSuccess(
        t,
        await fetchAnswer(`${d.compatUrl}/confapi/api/isMeetingRunning?${query}&checksum=${upper}`),
        `${algorithm} uppercase hex`,
      );
    }
  });

  t.test('checksum first, in the middle, and a leading & with no parameters', async (t) => {
    const query = 'meetingID=pos+test&name=Pos';
    const sum = sign('create', query, secret, 'sha256');
    assertSuccess(t, await fetchAnswer(`${d.compatUrl}/confapi/api/create?checksum=${sum}&${query}`), 'checksum first');
    const sum2 = sign('isMeetingRunning', 'meetingID=pos+test&x=1', secret);
    assertSuccess(
      t,
      await fetchAnswer(`${d.compatUrl}/confapi/api/isMeetingRunning?meetingID=pos+test&checksum=${sum2}&x=1`),
      'checksum in the middle',
    );
    const none = sign('getMeetings', '', secret);
    const list = await fetchAnswer(`${d.compatUrl}/confapi/api/getMeetings?&checksum=${none}`);
    assertSuccess(t, list, 'getMeetings?&checksum= (leading &, nothing else)');
  });

  t.test('anything else is checksumError', async (t) => {
    const query = 'meetingID=chk&name=Chk+room';
    const good = sign('create', query, secret);
    const url = (q: string) => `${d.compatUrl}/confapi/api/create?${q}`;
    const cases: [string, string][] = [
      ['missing checksum', query],
      ['empty checksum', `${query}&checksum=`],
      ['wrong secret', `${query}&checksum=${sign('create', query, 'other-secret')}`],
      ['other call name', `${query}&checksum=${sign('join', query, secret)}`],
      ['39 hex digits', `${query}&checksum=${good.slice(0, 39)}`],
      ['41 hex digits', `${query}&checksum=${good}a`],
      ['65 hex digits', `${query}&checksum=${sign('create', query, secret, 'sha256')}0`],
      ['not hex', `${query}&checksum=${'z'.repeat(40)}`],
      ['+ re-encoded as %20 after signing', `${query.replace('+', '%20')}&checksum=${good}`],
      ['parameters reordered after signing', `name=Chk+room&meetingID=chk&checksum=${good}`],
      ['a parameter added after signing', `${query}&role=MODERATOR&checksum=${good}`],
      ['checksum twice', `${query}&checksum=${good}&checksum=${good}`],
      ['checksum twice, once empty', `${query}&checksum=&checksum=${good}`],
    ];
    for (const [what, q] of cases) assertFailed(t, await fetchAnswer(url(q)), 'checksumError', what);
    assertSuccess(t, await fetchAnswer(url(`${query}&checksum=${good}`)), 'the good one still works');
  });
});
