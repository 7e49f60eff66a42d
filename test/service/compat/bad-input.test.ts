// Issue 5 points 5, 6, 13 and 15: what the API refuses, how, and that refusals never act; issue 28 point 4 (names).
import { join } from 'node:path';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { renderResponse, xmlSafe } from '../../../src/compat/confapi/xml.js';
import { SqliteCompatStore } from '../../../src/compat/store/compat-store.js';
import {
  assertFailed,
  assertSuccess,
  attendeesOf,
  claimsOf,
  ConfapiClient,
  fetchAnswer,
  parseXml,
  roomAndToken,
  sign,
  startWithToken,
} from '../../helpers/compat.js';
import { assertError } from '../../helpers/api.js';
import { Browser, createRoom } from '../../helpers/waiting.js';

const secret = 'bad-input-secret-5f2a9c';
/** Names the probe of issue 28 got past the end-only rule, and their German twins. */
const bracketedRoles = [
  '[Moderator] Eve',
  'Eve (Moderator) \u2713',
  'Eve (moderator) 2',
  'Eve (Moderatorin) 2',
  '\uFF3BGastgeber\uFF3D Eve',
];

t.test('unit: XML escaping and stripping', async (t) => {
  const text = renderResponse({ returncode: 'SUCCESS', name: 'a<b>&c]]>d\u0001e\u0000f\ud800g\ufffeh\u{1F600}\ttab' });
  t.match(text, /<name>a&lt;b&gt;&amp;c\]\]&gt;def/, 'markup escaped, ]]> broken, control characters removed');
  t.notMatch(text, /[\u0000\u0001\ufffe]/, 'no control characters or U+FFFE');
  t.notMatch(text, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no lone surrogate');
  t.match(text, /\u{1F600}\ttab/u, 'astral characters and tabs kept');
  const parsed = await parseXml(text);
  t.equal(parsed?.name, 'a<b>&c]]>defgh\u{1F600}\ttab', 'a strict parser reads it back');
  t.equal(xmlSafe('\u0008x\u001f'), 'x');
});

t.test('a real daemon', async (t) => {
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret } });
  const api = new ConfapiClient(d.compatUrl, secret);
  const raw = (call: string, query: string, init: RequestInit = {}) =>
    fetchAnswer(`${d.compatUrl}/confapi/api/${call}?${query}&checksum=${sign(call, query, secret)}`, init);

  assertSuccess(
    t,
    await api.get('create', [
      ['meetingID', 'm1'],
      ['moderatorPW', 'mp'],
      ['attendeePW', 'ap'],
    ]),
    'create m1',
  );

  t.test('unsupported and unknown calls: unsupportedRequest', async (t) => {
    for (const call of [
      'getDefaultConfigXML',
      'setConfigXML',
      'insertDocument',
      'setPollXML',
      'signOut',
      'noSuchCall',
      'hooks/create',
      'Create',
    ]) {
      assertFailed(t, await api.get(call, [['meetingID', 'm1']]), 'unsupportedRequest', call);
    }
    assertFailed(
      t,
      await fetchAnswer(`${d.compatUrl}/confapi/api/insertDocument`, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: '<x/>',
      }),
      'unsupportedRequest',
      'POST insertDocument',
    );
  });

  // Issue 33 point 7: upstream answers these two in JSON; a client parsing JSON crashed on our XML.
  t.test("the text-track calls: refused in upstream's JSON shape", async (t) => {
    const refusal = {
      response: { returncode: 'FAILED', messageKey: 'unsupportedRequest', message: 'This request is not supported.' },
    };
    for (const call of ['getRecordingTextTracks', 'putRecordingTextTrack']) {
      const answer = await api.get(call, [['recordID', 'r1']]);
      t.equal(answer.status, 200, `${call}: HTTP 200`);
      t.match(answer.headers.get('content-type'), /^application\/json/, `${call}: JSON`);
      t.same(JSON.parse(answer.text), refusal, `${call}: FAILED, unsupportedRequest`);
    }
    // Upstream's clients upload a track as multipart: still the JSON refusal, never XML.
    const upload = await fetchAnswer(
      api.url('putRecordingTextTrack', [
        ['recordID', 'r1'],
        ['kind', 'subtitles'],
      ]),
      {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.vtt"\r\n\r\nWEBVTT\r\n--x--\r\n',
      },
    );
    t.match(upload.headers.get('content-type'), /^application\/json/, 'a multipart upload: JSON');
    t.equal(JSON.parse(upload.text).response.returncode, 'FAILED');
    const forged = await fetchAnswer(
      `${d.compatUrl}/confapi/api/getRecordingTextTracks?recordID=r1&checksum=${'0'.repeat(40)}`,
    );
    t.same(
      JSON.parse(forged.text).response.messageKey,
      'checksumError',
      'a bad checksum is refused first, in JSON too',
    );
  });

  t.test('parameter names are case-sensitive', async (t) => {
    assertFailed(
      t,
      await api.get('create', [['MeetingID', 'case']]),
      'missingParamMeetingID',
      'MeetingID is not meetingID',
    );
    assertFailed(
      t,
      await api.get('isMeetingRunning', [['meetingid', 'm1']]),
      'missingParamMeetingID',
      'meetingid is not meetingID',
    );
    const joined = await api.get('join', [
      ['meetingID', 'm1'],
      ['fullName', 'Eve'],
      ['ROLE', 'MODERATOR'],
      ['password', 'ap'],
      ['redirect', 'false'],
    ]);
    assertSuccess(t, joined, 'ROLE is ignored');
    t.equal(
      claimsOf(roomAndToken(joined.xml.url).token).role,
      'participant',
      'ROLE=MODERATOR does not make a moderator',
    );
  });

  t.test('a duplicated meetingID, role or password is refused, never resolved', async (t) => {
    const cases: [string, [string, string][]][] = [
      [
        'meetingID twice',
        [
          ['meetingID', 'm1'],
          ['meetingID', 'other'],
          ['fullName', 'Eve'],
          ['role', 'VIEWER'],
        ],
      ],
      [
        'role twice',
        [
          ['meetingID', 'm1'],
          ['fullName', 'Eve'],
          ['role', 'VIEWER'],
          ['role', 'MODERATOR'],
        ],
      ],
      [
        'password twice',
        [
          ['meetingID', 'm1'],
          ['fullName', 'Eve'],
          ['password', 'ap'],
          ['password', 'mp'],
        ],
      ],
    ];
    for (const [what, pairs] of cases) {
      const answer = await api.get('join', pairs);
      assertFailed(t, answer, 'validationError', what);
      t.equal(answer.headers.get('location'), null, `${what}: no redirect`);
    }
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'dup'],
        ['meetingID', 'dup2'],
      ]),
      'validationError',
      'create with meetingID twice',
    );
    assertFailed(
      t,
      await api.get('isMeetingRunning', [
        ['meetingID', 'dup'],
        ['meetingID', 'dup'],
      ]),
      'validationError',
      'even twice the same',
    );
  });

  t.test('meetingID with / ? # is refused with invalidMeetingIdentifier; other shapes', async (t) => {
    for (const id of ['a/b', 'a?b', 'a#b', '/', '?x']) {
      assertFailed(
        t,
        await api.get('create', [['meetingID', id]]),
        'invalidMeetingIdentifier',
        `create ${JSON.stringify(id)}`,
      );
    }
    assertFailed(t, await api.get('create', [['meetingID', 'a,b']]), 'validationError', 'a comma');
    assertFailed(t, await api.get('create', [['meetingID', ' padded']]), 'validationError', 'outer spaces');
    assertFailed(t, await api.get('create', [['meetingID', 'ctl\u0001']]), 'validationError', 'a control character');
    assertFailed(t, await api.get('create', [['meetingID', 'x'.repeat(257)]]), 'sizeError', '257 characters');
    assertFailed(t, await api.get('create', [['meetingID', '']]), 'missingParamMeetingID', 'empty');
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'n1'],
        ['record', 'maybe'],
      ]),
      'validationError',
      'record not a boolean',
    );
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'n1'],
        ['duration', '-1'],
      ]),
      'validationError',
      'negative duration',
    );
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'n1'],
        ['maxParticipants', 'ten'],
      ]),
      'validationError',
      'maxParticipants not a number',
    );
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'n1'],
        ['guestPolicy', 'SOMETIMES'],
      ]),
      'validationError',
      'unknown guestPolicy',
    );
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'n1'],
        ['logoutURL', 'javascript:alert(1)'],
      ]),
      'validationError',
      'logoutURL not http(s)',
    );
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'n1'],
        ['moderatorPW', 'p'.repeat(65)],
      ]),
      'invalidPassword',
      'password too long',
    );
    assertFailed(
      t,
      await api
        .get('isMeetingRunning', [['meetingID', 'n1']])
        .then(() => api.get('getMeetingInfo', [['meetingID', 'n1']])),
      'notFound',
      'none of those created a meeting',
    );
  });

  t.test('values with markup come back escaped; control characters are refused', async (t) => {
    // Issue 34: a stored text holds no control character (PostgreSQL's text cannot hold NUL).
    for (const [param, value] of [
      ['name', 'Tom & Jerry\u0007'],
      ['meta_note', '<b>&amp;\u0001</b>'],
    ] as const) {
      const refused = await api.get('create', [
        ['meetingID', 'xml & <id>'],
        [param, value],
      ]);
      assertFailed(t, refused, 'validationError', `${param} with a control character`);
      t.match(refused.xml?.message, new RegExp(`^${param} `), `${param}: the message names the parameter`);
    }
    const name = 'Tom & Jerry <script>]]> "quoted"';
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'xml & <id>'],
        ['name', name],
        ['meta_note', '<b>&amp;</b>'],
      ]),
      'create',
    );
    const info = await api.get('getMeetingInfo', [['meetingID', 'xml & <id>']]);
    t.not(info.xml, null, 'the answer parses strictly as XML');
    t.equal(info.xml.meetingID, 'xml & <id>');
    t.equal(info.xml.meetingName, 'Tom & Jerry <script>]]> "quoted"', 'name: escaped');
    t.equal(info.xml.metadata.note, '<b>&amp;</b>');
    t.notMatch(info.text, /<script>/, 'no raw markup in the text');
  });

  t.test('join: failures are XML (never a redirect), roles and passwords', async (t) => {
    const bad = await fetchAnswer(
      `${d.compatUrl}/confapi/api/join?meetingID=m1&fullName=Eve&logoutURL=https%3A%2F%2Fevil.example&checksum=${'0'.repeat(40)}`,
    );
    assertFailed(t, bad, 'checksumError', 'bad checksum with a logoutURL');
    t.equal(bad.headers.get('location'), null, 'no redirect to the logoutURL');
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'm1'],
        ['fullName', 'Eve'],
        ['password', 'wrong'],
      ]),
      'invalidPassword',
      'wrong password',
    );
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'm1'],
        ['fullName', 'Eve'],
      ]),
      'invalidPassword',
      'no role, no password, meeting has passwords',
    );
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'm1'],
        ['fullName', 'Eve'],
        ['role', 'ADMIN'],
      ]),
      'validationError',
      'unknown role',
    );
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'm1'],
        ['fullName', ' '],
        ['role', 'VIEWER'],
      ]),
      'missingParamFullName',
      'blank fullName',
    );
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'nope'],
        ['fullName', 'Eve'],
        ['role', 'VIEWER'],
      ]),
      'invalidMeetingIdentifier',
      'unknown meeting',
    );
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'm1'],
        ['fullName', 'Eve'],
        ['role', 'VIEWER'],
        ['createTime', '123'],
      ]),
      'mismatchCreateTimeParam',
      'createTime mismatch',
    );
    const byPassword = await api.get('join', [
      ['meetingID', 'm1'],
      ['fullName', 'Mod'],
      ['password', 'mp'],
      ['redirect', 'false'],
    ]);
    t.equal(
      claimsOf(roomAndToken(byPassword.xml.url).token).role,
      'moderator',
      'the moderator password makes a moderator',
    );
    const roleWins = await api.get('join', [
      ['meetingID', 'm1'],
      ['fullName', 'Vi'],
      ['role', 'viewer'],
      ['password', 'mp'],
      ['redirect', 'false'],
    ]);
    t.equal(
      claimsOf(roomAndToken(roleWins.xml.url).token).role,
      'participant',
      'role (any case) takes priority over the password',
    );
    const long = await api.get('join', [
      ['meetingID', 'm1'],
      ['fullName', `${'N'.repeat(70)}\u0001`],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ]);
    t.equal(
      String(claimsOf(roomAndToken(long.xml.url).token).name).length,
      64,
      'a long name is cut to what the engine accepts',
    );
  });

  t.test('join: fullName is cleaned of invisible characters; an impersonation is refused', async (t) => {
    assertSuccess(t, await api.get('create', [['meetingID', 'names']]), 'create names');
    const joined = await api.get('join', [
      ['meetingID', 'names'],
      ['fullName', '\u2067Eve\u202Egnp.exe\u2069\u200B'],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ]);
    assertSuccess(t, joined, 'a fullName with bidi controls joins');
    const { roomId, token } = roomAndToken(joined.xml.url);
    t.equal(claimsOf(token).name, 'Evegnp.exe', 'the join token carries the cleaned name');
    t.match((await startWithToken(d, roomId, token)).body, { status: 'joined' }, 'the room accepts it');
    t.same(
      attendeesOf((await api.get('getMeetingInfo', [['meetingID', 'names']])).xml).map((a) => a.fullName),
      ['Evegnp.exe'],
      'listed clean',
    );
    const family = 'Ada \u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const emoji = await api.get('join', [
      ['meetingID', 'names'],
      ['fullName', family],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ]);
    t.equal(claimsOf(roomAndToken(emoji.xml.url).token).name, family, 'a ZWJ emoji survives the cleaning');
    for (const fullName of [
      'System',
      'Sys\u200Btem',
      '\uFF33\uFF39\uFF33\uFF34\uFF25\uFF2D',
      'Bob (moderator)',
      'Bob (\u202EModerator) ',
      ...bracketedRoles,
    ]) {
      assertFailed(
        t,
        await api.get('join', [
          ['meetingID', 'names'],
          ['fullName', fullName],
          ['role', 'VIEWER'],
        ]),
        'validationError',
        JSON.stringify(fullName),
      );
    }
  });

  // Issue 28 point 4: a role word in brackets anywhere, not only at the end, at a room's door too.
  t.test('knock: a role word in brackets anywhere in the name is 400 invalid_field (name)', async (t) => {
    await createRoom(t, d, { room_id: 'role-names', name: 'Role names', waiting_room: 'all' });
    for (const name of bracketedRoles) {
      const browser = new Browser(d, 'role-names');
      assertError(t, await browser.knock({ name }), 400, 'invalid_field', 'name');
      t.equal(browser.cookie, null, `${JSON.stringify(name)}: no waiting cookie`);
    }
    t.equal(
      (await new Browser(d, 'role-names').knock({ name: 'Host Eve (2)' })).status,
      202,
      'a role word outside brackets is a name',
    );
  });

  t.test('maxParticipants is enforced at join', async (t) => {
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', 'small'],
        ['maxParticipants', '1'],
      ]),
      'create max 1',
    );
    const first = await api.get('join', [
      ['meetingID', 'small'],
      ['fullName', 'One'],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
    ]);
    const { roomId, token } = roomAndToken(first.xml.url);
    t.match((await startWithToken(d, roomId, token)).body, { status: 'joined' }, 'the first one enters');
    assertFailed(
      t,
      await api.get('join', [
        ['meetingID', 'small'],
        ['fullName', 'Two'],
        ['role', 'VIEWER'],
      ]),
      'maxParticipantsReached',
      'the second one',
    );
    t.equal(attendeesOf((await api.get('getMeetingInfo', [['meetingID', 'small']])).xml).length, 1);
  });

  t.test('POST: wrong content type, parameters in both places, oversized', async (t) => {
    const q = 'meetingID=ct';
    for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x']) {
      assertFailed(
        t,
        await raw('create', q, { method: 'POST', headers: { 'content-type': type }, body: 'x=1' }),
        'unsupportedContentType',
        type,
      );
    }
    assertFailed(
      t,
      await raw('join', q, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<modules/>' }),
      'unsupportedContentType',
      'XML to a call other than create',
    );
    assertFailed(
      t,
      await raw('create', q, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'role=MODERATOR',
      }),
      'validationError',
      'unsigned body parameters beside a signed query',
    );
    assertFailed(
      t,
      await raw('create', q, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: '<modules><module',
      }),
      'validationError',
      'malformed XML body',
    );
    assertFailed(
      t,
      await raw('create', q, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: `<modules>${'x'.repeat(300 * 1024)}</modules>`,
      }),
      'requestTooLarge',
      'a 300 KiB body',
    );
    assertFailed(
      t,
      await api.get('create', [
        ['meetingID', 'big'],
        ['meta_x', 'y'.repeat(9000)],
      ]),
      'requestTooLarge',
      'a 9 KiB query string',
    );
    assertFailed(
      t,
      await api
        .get('isMeetingRunning', [['meetingID', 'ct']])
        .then(() => api.get('getMeetingInfo', [['meetingID', 'ct']])),
      'notFound',
      'nothing was created',
    );
  });

  t.test('POST create stores pre-uploaded presentations', async (t) => {
    const q = 'meetingID=slides&name=Slides';
    const body =
      '<modules><module name="presentation"><document url="https://cdn.example/deck.pdf" filename="deck.pdf"/><document name="inline.pdf">SGVsbG8=</document></module></modules>';
    const created = await raw('create', q, { method: 'POST', headers: { 'content-type': 'text/xml' }, body });
    assertSuccess(t, created, 'create with slides');
    const store = new SqliteCompatStore(join(d.dataDir, 'compat-api'));
    t.teardown(() => store.close());
    const meeting = store.meeting(created.xml.internalMeetingID);
    t.same(
      meeting?.presentations,
      [
        { url: 'https://cdn.example/deck.pdf', filename: 'deck.pdf', inline: false, size: 0 },
        { url: null, filename: 'inline.pdf', inline: true, size: 5 },
      ],
      'document references stored, nothing fetched',
    );
  });
});
