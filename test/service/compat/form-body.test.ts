// Issue 11 point 5: a form-body POST must be signed over the parameters it carries. A checksum
// over the empty query (one string per call name) used to authorise any body.
import { randomInt } from 'node:crypto';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { signedTexts } from '../../../src/compat/confapi/checksum.js';
import { readQuery } from '../../../src/compat/confapi/query.js';
import { assertFailed, assertSuccess, ConfapiClient, fetchAnswer, sign } from '../../helpers/compat.js';

const secret = 'form-body-secret-0c7e41';

t.test('unit: the texts a checksum may be over', async (t) => {
  const texts = (query: string, body: string | null) =>
    signedTexts(readQuery(query), body === null ? null : readQuery(body));
  t.same(texts('a=1&checksum=x', null), ['a=1'], 'a GET: the raw query minus the checksum pair');
  t.same(
    texts('checksum=x', 'name=A+b*~&meetingID=m'),
    ['name=A+b*~&meetingID=m', 'meetingID=m&name=A+b*%7E'],
    'a form body: raw, or sorted and form-encoded; never ""',
  );
  t.same(
    texts('', 'meetingID=m&checksum=x&name=n'),
    ['meetingID=m&name=n'],
    'the checksum in the body: cut from the raw body (already sorted: one text)',
  );
  t.same(
    texts('meetingID=m', 'checksum=x'),
    ['meetingID=m'],
    'a body holding only the checksum: the query is what is used and signed',
  );
  t.same(
    texts('meetingID=m&checksum=x', 'role=MODERATOR'),
    ['meetingID=m'],
    'parameters in both: the query (the call is refused later)',
  );
  t.same(texts('&checksum=x', ''), [''], 'no parameters anywhere: "" (a parameterless call, as with GET)');

  // Whatever the body, "" is a candidate only when the body carries no parameter.
  const alphabet = ['a', '=', '&', '+', '%', '2', '0', '?', 'checksum', 'checksum=', 'checksu%6D=', '%C3%A9', ' '];
  let leaked = 0;
  for (let n = 0; n < 5000; n++) {
    let body = '';
    for (let k = randomInt(1, 10); k > 0; k--) body += alphabet[randomInt(0, alphabet.length)];
    const read = readQuery(body);
    if (read.params.length > 0 && signedTexts(readQuery('checksum=x'), read).includes('')) {
      leaked++;
      t.fail(`"" authorises the body ${JSON.stringify(body)}`);
    }
  }
  t.equal(leaked, 0, '5,000 random bodies with parameters: "" never authorises one');
});

t.test('a real daemon', async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret } });
  const api = new ConfapiClient(d.compatUrl, secret);
  const overEmpty = (call: string) => sign(call, '', secret);
  const post = (call: string, query: string, body: string, type = 'application/x-www-form-urlencoded') =>
    fetchAnswer(`${d.compatUrl}/confapi/api/${call}${query === '' ? '' : `?${query}`}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
  const notCreated = async (id: string) =>
    assertFailed(t, await api.get('getMeetingInfo', [['meetingID', id]]), 'notFound', `${id} was not created`);

  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'held'],
      ['moderatorPW', 'mp'],
      ['attendeePW', 'ap'],
    ]),
    'create held (GET, unchanged)',
  );

  t.test('a checksum over the empty string authorises no form body', async (t) => {
    assertFailed(
      t,
      await post('create', `checksum=${overEmpty('create')}`, 'meetingID=fb-empty&name=Posted'),
      'checksumError',
      'create, checksum in the query',
    );
    assertFailed(
      t,
      await post('create', '', `meetingID=fb-empty&name=Posted&checksum=${overEmpty('create')}`),
      'checksumError',
      'create, checksum in the body',
    );
    assertFailed(
      t,
      await post('create', `checksum=${overEmpty('create').toUpperCase()}`, 'meetingID=fb-empty'),
      'checksumError',
      'create, uppercase hex',
    );
    assertFailed(
      t,
      await post('create', `checksum=${sign('create', '', secret, 'sha512')}`, 'meetingID=fb-empty'),
      'checksumError',
      'create, SHA-512',
    );
    await notCreated('fb-empty');
    assertFailed(
      t,
      await post(
        'join',
        `checksum=${overEmpty('join')}`,
        'meetingID=held&fullName=Mallory&role=MODERATOR&redirect=false',
      ),
      'checksumError',
      'join as moderator',
    );
    assertFailed(
      t,
      await post('end', `checksum=${overEmpty('end')}`, 'meetingID=held&password=mp'),
      'checksumError',
      'end',
    );
    t.equal((await api.get('isMeetingRunning', [['meetingID', 'held']])).xml?.returncode, 'SUCCESS');
    t.equal(
      (await api.get('getMeetingInfo', [['meetingID', 'held']])).xml?.hasBeenForciblyEnded,
      'false',
      'held was not ended',
    );
  });

  t.test('a form body signed over what it carries is accepted', async (t) => {
    const body = 'meetingID=posted+1&name=Posted+room';
    const a = await post('create', `checksum=${sign('create', body, secret, 'sha256')}`, body);
    assertSuccess(t, a, 'checksum in the query, over the raw body');
    t.equal(a.xml?.meetingID, 'posted 1', '+ decoded as a space');
    for (const [where, sent, signed] of [
      ['first', 'checksum=C&meetingID=posted+2&name=N', 'meetingID=posted+2&name=N'],
      ['middle', 'meetingID=posted+3&checksum=C&name=N', 'meetingID=posted+3&name=N'],
      ['last', 'meetingID=posted+4&name=N&checksum=C', 'meetingID=posted+4&name=N'],
    ] as const) {
      assertSuccess(
        t,
        await post('create', '', sent.replace('C', sign('create', signed, secret))),
        `checksum ${where} in the body, over the rest of the body`,
      );
    }
    const sorted = await post(
      'create',
      '',
      `name=Posted+room&meetingID=posted+5&checksum=${sign('create', 'meetingID=posted+5&name=Posted+room', secret)}`,
      'application/x-www-form-urlencoded; charset=UTF-8',
    );
    assertSuccess(t, sorted, "over the body sorted by name (upstream's older POST rule), with a charset");
    const encoded = 'meeting%49D=enc+1&na%6De=Enc%20room';
    const named = await post('create', `checksum=${sign('create', encoded, secret)}`, encoded);
    assertSuccess(t, named, 'percent-encoded names, signed as sent');
    t.equal(named.xml?.meetingID, 'enc 1', 'the name decoded to meetingID');
    const running = await post(
      'isMeetingRunning',
      '',
      `meetingID=held&checksum=${sign('isMeetingRunning', 'meetingID=held', secret)}`,
    );
    assertSuccess(t, running, 'isMeetingRunning by form');
    t.equal(running.xml?.running, 'false');
    assertSuccess(
      t,
      await post('getMeetings', '', `checksum=${overEmpty('getMeetings')}`),
      'a call without parameters, its checksum over "" in the body',
    );
  });

  t.test('odd encodings: a clear FAILED answer, never a crash', async (t) => {
    // Not sorted by name, so the raw text alone matches.
    const body = 'name=Odd&meetingID=odd+1';
    const good = sign('create', body, secret);
    const cases: [string, string, string, string][] = [
      ['+ re-encoded as %20 after signing', `checksum=${good}`, body.replace('+', '%20'), 'checksumError'],
      ['a parameter added to the body after signing', `checksum=${good}`, `${body}&role=MODERATOR`, 'checksumError'],
      ['the same checksum in the query and the body', `checksum=${good}`, `${body}&checksum=${good}`, 'checksumError'],
      ['the checksum twice in the body', '', `${body}&checksum=${good}&checksum=${good}`, 'checksumError'],
      ['a percent-encoded checksum name in the body', '', `${body}&checksu%6D=${good}`, 'checksumError'],
      ['a percent-encoded checksum name in the query', `checksu%6D=${good}`, body, 'checksumError'],
      [
        'a percent-encoded checksum name, the body sorted',
        '',
        `meetingID=odd+1&name=Odd&checksu%6D=${sign('create', 'meetingID=odd+1&name=Odd', secret)}`,
        'checksumError',
      ],
      ['a checksum with no value in the body', `checksum=${good}`, `${body}&checksum`, 'checksumError'],
      ['no checksum anywhere', '', body, 'checksumError'],
      [
        'parameters in both, the query signed',
        `meetingID=odd+1&checksum=${sign('create', 'meetingID=odd+1', secret)}`,
        'name=Odd',
        'validationError',
      ],
      [
        'parameters in both, the checksum in the body',
        'meetingID=odd+1',
        `name=Odd&checksum=${sign('create', 'meetingID=odd+1', secret)}`,
        'validationError',
      ],
      [
        'a duplicated parameter, signed',
        `checksum=${sign('create', 'meetingID=odd+1&meetingID=odd+2', secret)}`,
        'meetingID=odd+1&meetingID=odd+2',
        'validationError',
      ],
    ];
    for (const [what, query, sent, key] of cases) {
      const answer = await post('create', query, sent);
      assertFailed(t, answer, key, what);
      if (key === 'checksumError') t.match(answer.xml?.message, /checksum/i, `${what}: the message names the checksum`);
    }
    await notCreated('odd 1');
    const malformed = 'meetingID=%zz&name=%E2%82%AC';
    const answer = await post('create', `checksum=${sign('create', malformed, secret)}`, malformed);
    assertSuccess(t, answer, 'malformed escapes signed as sent: read as URLSearchParams reads them');
    t.equal(answer.xml?.meetingID, '%zz', 'a bad escape kept as text');
    // Bytes that are not UTF-8 (a cut sequence) decode to U+FFFD: a stored text refuses them (issue 34).
    const cut = 'meetingID=cut&name=%E2%82';
    const refused = await post('create', `checksum=${sign('create', cut, secret)}`, cut);
    assertFailed(t, refused, 'validationError', 'a name whose bytes are not UTF-8');
    t.match(refused.xml?.message, /^name /, 'the message names the parameter');
  });

  t.test('GET and XML bodies unchanged', async (t) => {
    assertSuccess(t, await api.get('isMeetingRunning', [['meetingID', 'held']]), 'GET');
    assertSuccess(
      t,
      await fetchAnswer(`${d.compatUrl}/confapi/api/getMeetings?checksum=${overEmpty('getMeetings')}`),
      'GET getMeetings over ""',
    );
    const q = 'meetingID=slides&name=With+slides';
    const slides =
      '<?xml version="1.0"?><modules><module name="presentation"><document url="https://example.org/a.pdf" filename="a.pdf"/></module></modules>';
    assertSuccess(
      t,
      await post('create', `${q}&checksum=${sign('create', q, secret)}`, slides, 'application/xml'),
      'create with an XML body: the query signed, the body not',
    );
    assertSuccess(
      t,
      await post(
        'isMeetingRunning',
        `meetingID=held&checksum=${sign('isMeetingRunning', 'meetingID=held', secret)}`,
        '',
      ),
      'a POST with an empty body reads the query',
    );
    assertSuccess(
      t,
      await post(
        'isMeetingRunning',
        'meetingID=held',
        `checksum=${sign('isMeetingRunning', 'meetingID=held', secret)}`,
      ),
      'the checksum alone in the body covers the query',
    );
  });
});
