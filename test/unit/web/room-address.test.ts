// Issue 32 points 1 and 5: what a typed code or a pasted link names, read without asking the
// server. A readable code may be typed with spaces, capitals, without dashes or in full-width
// letters; look-alike letters of other scripts, invisible characters and overlong text name no
// room; an id chosen through the rooms API is kept exactly as typed.
import t from 'tap';
import { formatReadableId, readableFormOf, typedCodeMax } from '../../../src/protocol/room-code.js';
import { arrivalRooms, roomFromTyped, roomHref, typedLinkMax } from '../../../src/web/room-address.js';

const host = 'meet.example.org';

t.test('readableFormOf: the readable id a typed code stands for', async (t) => {
  const same: [string, string][] = [
    ['abc-defg-hij', 'as written'],
    ['ABC-DEFG-HIJ', 'capitals'],
    ['abc defg hij', 'spaces'],
    ['  Abc  Defg  Hij  ', 'spaces around and between'],
    ['abcdefghij', 'without the dashes'],
    ['abc\u2013defg\u2014hij', 'en and em dashes (a word processor made them)'],
    ['abc\u00a0defg\u2009hij', 'no-break and thin spaces'],
    ['abc\tdefg\nhij', 'tabs and a line break from a paste'],
    ['\uff41\uff42\uff43\uff0d\uff44\uff45\uff46\uff47\uff0d\uff48\uff49\uff4a', 'full-width letters and dash'],
    ['\uff21\uff22\uff23 \uff24\uff25\uff26\uff27 \uff28\uff29\uff2a', 'full-width capitals'],
  ];
  for (const [typed, what] of same) t.equal(readableFormOf(typed), 'abc-defg-hij', `${what}: ${JSON.stringify(typed)}`);

  const none: [string, string][] = [
    ['', 'nothing'],
    ['abc-defg-hi', 'nine letters'],
    ['abc-defg-hijk', 'eleven letters'],
    ['abc-defg-h1j', 'a digit'],
    ['\u0430bc-defg-hij', 'a Cyrillic а that looks like a'],
    ['abc-d\u0435fg-hij', 'a Cyrillic е that looks like e'],
    ['abc-defg-h\u0131j', 'a dotless ı'],
    ['ab\u0301c-defg-hij', 'a combining accent'],
    ['\u00e1bc-defg-hij', 'an accented letter'],
    ['abc\u200b-defg-hij', 'a zero-width space'],
    ['abc-defg-hij\u202e', 'a right-to-left override'],
    ['abc_defg_hij', 'underscores'],
    ['abc.defg.hij', 'dots'],
    ['abc/defg/hij', 'slashes'],
    ['%61bc-defg-hij', 'percent-encoding is not decoded here'],
    [`${' '.repeat(typedCodeMax)}abcdefghij`, `more than ${typedCodeMax} characters, however many are spaces`],
    ['a'.repeat(100_000), 'a hundred thousand letters'],
  ];
  for (const [typed, what] of none) t.equal(readableFormOf(typed), null, `${what}: refused`);
  t.equal(formatReadableId('klmnopqrst'), 'klm-nopq-rst', 'ten letters in groups of three, four and three');
});

t.test('roomFromTyped: a code', async (t) => {
  t.same(roomFromTyped('ABC DEFG HIJ', host), { room: 'abc-defg-hij', token: null }, 'a readable code, as typed');
  t.same(roomFromTyped(' abcdefghij ', host), { room: 'abcdefghij', token: null }, 'a valid id stays itself');
  t.same(roomFromTyped('Mathematik', host), { room: 'Mathematik', token: null }, 'an id chosen with capitals stays');
  t.same(roomFromTyped('lesson-7', host), { room: 'lesson-7', token: null }, 'an id of the rooms API');
  t.same(roomFromTyped('cf-0123abcd', host), { room: 'cf-0123abcd', token: null }, 'any id format');
  t.same(roomFromTyped('', host), { refused: 'empty' }, 'nothing typed');
  t.same(roomFromTyped(' \n\t ', host), { refused: 'empty' }, 'only spaces');
  for (const typed of [
    'hello world!',
    'caf\u00e9',
    '\u0430bc-defg-hij',
    '..',
    '.',
    'x'.repeat(65),
    'a b',
    '<script>',
  ]) {
    t.same(roomFromTyped(typed, host), { refused: 'not_a_code' }, `${JSON.stringify(typed)} is no code`);
  }
  t.same(roomFromTyped('x'.repeat(typedLinkMax + 1), host), { refused: 'not_a_code' }, 'overlong');
});

t.test('roomFromTyped: a pasted link of this service', async (t) => {
  t.same(
    roomFromTyped(`https://${host}/room/abc-defg-hij`, host),
    { room: 'abc-defg-hij', token: null },
    'a participant link',
  );
  t.same(
    roomFromTyped(`https://${host}/room/abc-defg-hij?t=eyJ.a.b&lang=de`, host),
    { room: 'abc-defg-hij', token: 'eyJ.a.b' },
    'a join link keeps its token',
  );
  t.same(roomFromTyped(`http://${host}/room/Lesson%207/`, host), { refused: 'not_a_code' }, 'a space in an id');
  t.same(
    roomFromTyped(`https://${host.toUpperCase()}/room/ABC%20DEFG%20HIJ`, host),
    { room: 'abc-defg-hij', token: null },
    'a host in capitals, a code with spaces and capitals',
  );
  t.same(roomFromTyped(`${host}/room/lesson-7`, host), { room: 'lesson-7', token: null }, 'without the scheme');
  t.same(roomFromTyped('/room/lesson-7', host), { room: 'lesson-7', token: null }, 'a path alone');
  t.same(roomFromTyped('localhost:3000/room/x', 'localhost:3000'), { room: 'x', token: null }, 'a port');
  t.same(roomFromTyped('https://evil.example/room/abc-defg-hij', host), { refused: 'elsewhere' }, 'another site');
  t.same(roomFromTyped(`https://${host}.evil.example/room/a`, host), { refused: 'elsewhere' }, 'a longer host');
  t.same(roomFromTyped(`https://user@evil.example/room/a`, host), { refused: 'elsewhere' }, 'user info');
  for (const link of [
    `https://${host}/`,
    `https://${host}/api/rooms`,
    `https://${host}/room/`,
    `https://${host}/room/a/b`,
    `https://${host}/room/%FF`,
    `https://${host}/room/%2e%2e`,
    `https://${host}/room/${'a'.repeat(65)}`,
    `javascript://${host}/room/a`,
    `ftp://${host}/room/a`,
    'https://[bad',
  ]) {
    t.same(roomFromTyped(link, host), { refused: 'not_a_code' }, `${link.slice(0, 60)} names no room`);
  }
  const long = 'x'.repeat(9000);
  t.same(roomFromTyped(`https://${host}/room/a?t=${long}`, host), { refused: 'not_a_code' }, 'a link over the limit');
  t.same(
    roomFromTyped(`https://${host}/room/a?t=${'x'.repeat(8193)}`.slice(0, typedLinkMax), host),
    { room: 'a', token: null },
    'a token longer than the page route reads is dropped',
  );
});

t.test('roomHref: the arrival address, encoded', async (t) => {
  t.equal(roomHref('abc-defg-hij', null, null), '/room/abc-defg-hij');
  t.equal(roomHref('abc-defg-hij', 'a.b+c/d', 'de'), '/room/abc-defg-hij?t=a.b%2Bc%2Fd&lang=de');
  t.equal(roomHref('a.b_c', null, 'en'), '/room/a.b_c?lang=en');
});

t.test('arrivalRooms: the id as it stands first, then the readable id it stands for', async (t) => {
  t.same(arrivalRooms('abc-defg-hij'), ['abc-defg-hij'], 'a readable id');
  t.same(arrivalRooms('Mathematik'), ['Mathematik', 'mat-hema-tik'], 'an id with capitals first, as it stands');
  t.same(arrivalRooms('ABCDEFGHIJ'), ['ABCDEFGHIJ', 'abc-defg-hij'], 'capitals without dashes');
  t.same(arrivalRooms('ABC%20DEFG%20HIJ'), ['abc-defg-hij'], 'spaces: no room id, only the readable one');
  t.same(arrivalRooms('%EF%BD%81bc-defg-hij'), ['abc-defg-hij'], 'a full-width letter');
  t.same(arrivalRooms('lesson-7'), ['lesson-7'], 'any other id');
  t.same(arrivalRooms('%FF'), ['%FF'], 'undecodable: as it came (no room has it)');
  t.same(arrivalRooms('%D0%B0bc-defg-hij'), ['\u0430bc-defg-hij'], 'a look-alike: no readable id');
  t.same(arrivalRooms(''), [''], 'nothing');
});
