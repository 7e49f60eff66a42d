// Issue 6: the one-pass query reader must read every query exactly as URLSearchParams does
// and cut the signed text exactly as upstream's literal removal of the checksum pair does;
// otherwise a client's checksum or its parameters would change meaning.
import { randomInt } from 'node:crypto';
import t from 'tap';
import { readQuery } from '../../../src/compat/confapi/query.js';

/** The first `checksum` pair cut out of the raw text with its separator, nothing decoded: the oracle. */
function cutChecksum(raw: string): string {
  const pairs = raw.split('&');
  const index = pairs.findIndex((pair) => pair === 'checksum' || pair.startsWith('checksum='));
  if (index < 0) return raw;
  pairs.splice(index, 1);
  return pairs.join('&');
}

/** What the handler did before: URLSearchParams, the checksum pairs split off, the raw cut. */
function reference(raw: string) {
  const pairs = [...new URLSearchParams(raw)];
  return {
    params: pairs.filter(([name]) => name !== 'checksum'),
    checksums: pairs.filter(([name]) => name === 'checksum').map(([, value]) => value),
    signed: cutChecksum(raw),
  };
}

const cases = [
  '',
  '&',
  '&&a=1&&',
  '?',
  '?a=1',
  '??a=1',
  '?checksum=x&a=1',
  'meetingID=lesson-0001&checksum=ab12',
  'checksum=x',
  'checksum',
  'checksum&a=1',
  'checksum=&a=1',
  'a=1&checksum=x&b=2&checksum=y',
  'checksu%6D=x&a=1',
  'xchecksum=1&checksumx=2&a=2',
  '&checksum=x',
  'a=b+c&d=%20e&checksum=x',
  'name=Algebra+%26+%3CCo%3E+%22%C3%BC%22&meetingID=course-42+%5Bgroup+7%5D',
  'a=%',
  'a=%2',
  'a=%zz&b=%41',
  'a=%E2%82&b=ok',
  'a=%ED%A0%80',
  'a=%C0%AF',
  'a=%EF%BB%BFx',
  'a=%F0%9F%98%80+smile',
  '=value',
  'name=',
  'name',
  'a==b=c',
  'a=1#frag',
  'ü=€&%FF=%FE',
  'a+b=c+d&a%2Bb=c%2Bd',
];

t.test('readQuery reads as URLSearchParams and cuts the checksum pair as upstream does', async (t) => {
  for (const raw of cases) t.same(readQuery(raw), reference(raw), JSON.stringify(raw));
});

t.test('random queries from a hostile alphabet read the same', async (t) => {
  const alphabet = [
    'a',
    'b',
    '=',
    '&',
    '+',
    '%',
    '2',
    'B',
    'E',
    'F',
    '0',
    '?',
    'checksum',
    'checksum=',
    'é',
    '%C3%A9',
    '%ED%A0%80',
    '%Z',
    ' ',
  ];
  let differing = 0;
  for (let n = 0; n < 5000; n++) {
    let raw = '';
    const length = randomInt(0, 14);
    for (let k = 0; k < length; k++) raw += alphabet[randomInt(0, alphabet.length)];
    const got = readQuery(raw);
    const want = reference(raw);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      differing++;
      t.same(got, want, JSON.stringify(raw));
    }
  }
  t.equal(differing, 0, '5,000 random queries, none read differently');
});
