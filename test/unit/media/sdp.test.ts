import t from 'tap';
import { malformation, mediaSections, sending } from '../../../src/media/sdp.js';
import { audioOnlyOffer, chromeSdp, recvonlyOffer, sendrecvOffer, videoOnlyOffer } from './sdp-samples.js';

t.test('a Chrome offer with microphone and camera sends both', async (t) => {
  t.same(sending(sendrecvOffer), { audio: true, video: true });
  const sections = mediaSections(sendrecvOffer);
  t.same(
    sections.map((s) => [s.kind, s.port, s.direction, s.rejected, s.sends]),
    [
      ['audio', 9, 'sendrecv', false, true],
      ['video', 9, 'sendrecv', false, true],
    ],
  );
  t.match(sendrecvOffer, /\r\n/, 'the sample has CRLF line endings');
});

t.test('recvonly and inactive sections send nothing', async (t) => {
  t.same(sending(recvonlyOffer), { audio: false, video: false });
  t.same(sending(audioOnlyOffer), { audio: true, video: false });
  t.same(sending(videoOnlyOffer), { audio: false, video: true });
  const inactive = chromeSdp([
    { kind: 'audio', direction: 'inactive' },
    { kind: 'video', direction: 'inactive' },
  ]);
  t.same(sending(inactive), { audio: false, video: false });
  t.same(
    mediaSections(inactive).map((s) => s.direction),
    ['inactive', 'inactive'],
  );
});

t.test('sendonly sends; no direction at all means sendrecv', async (t) => {
  t.same(sending(chromeSdp([{ kind: 'audio', direction: 'sendonly' }])), { audio: true, video: false });
  const none = chromeSdp([
    { kind: 'audio', direction: null },
    { kind: 'video', direction: null },
  ]);
  t.same(sending(none), { audio: true, video: true });
  t.same(
    mediaSections(none).map((s) => s.direction),
    ['sendrecv', 'sendrecv'],
  );
});

t.test(
  'a session-level direction never makes a section quiet: Janus reads a bare section as sendrecv (issue 28 point 2)',
  async (t) => {
    const bare = (session: string) =>
      chromeSdp(
        [
          { kind: 'audio', direction: null },
          { kind: 'video', direction: 'sendonly' },
        ],
        [session],
      );
    t.same(
      sending(bare('a=recvonly')),
      { audio: true, video: true },
      'session recvonly over a bare audio section: it sends',
    );
    t.same(
      sending(bare('a=inactive')),
      { audio: true, video: true },
      'session inactive over a bare audio section: it sends',
    );
    t.same(sending(bare('a=sendonly')), { audio: true, video: true }, 'session sendonly: it sends');
    t.same(
      mediaSections(bare('a=recvonly')).map((s) => [s.direction, s.sends]),
      [
        ['recvonly', true],
        ['sendonly', true],
      ],
      'the RFC 3264 direction is still reported; only the verdict is conservative',
    );
    const quiet = chromeSdp(
      [
        { kind: 'audio', direction: 'recvonly' },
        { kind: 'video', direction: 'inactive' },
      ],
      ['a=sendrecv'],
    );
    t.same(
      sending(quiet),
      { audio: false, video: false },
      "a section's own recvonly or inactive overrides the session sendrecv",
    );
    const loud = chromeSdp(
      [
        { kind: 'audio', direction: 'recvonly' },
        { kind: 'video', direction: null },
      ],
      ['a=sendonly'],
    );
    t.same(sending(loud), { audio: false, video: true }, 'section-level recvonly overrides the session sendonly');
    const twoAudio = chromeSdp(
      [
        { kind: 'audio', direction: 'recvonly' },
        { kind: 'video', direction: 'recvonly' },
        { kind: 'audio', direction: null },
      ],
      ['a=recvonly'],
    );
    t.same(
      sending(twoAudio),
      { audio: true, video: false },
      'a second, bare audio section under a session recvonly is found',
    );
    const rejectedBare = chromeSdp([{ kind: 'audio', direction: null, port: 0 }], ['a=recvonly']);
    t.same(sending(rejectedBare), { audio: false, video: false }, 'a bare section with port 0 is still rejected');
  },
);

t.test('mids and what the author receives', async (t) => {
  const sdp = chromeSdp([
    { kind: 'audio', direction: 'recvonly' },
    { kind: 'video', direction: 'sendonly' },
    { kind: 'audio', direction: 'inactive' },
    { kind: 'video', direction: 'sendrecv', port: 0 },
    { kind: 'video', direction: null },
  ]);
  t.same(
    mediaSections(sdp).map((s) => [s.mid, s.receives]),
    [
      ['0', true],
      ['1', false],
      ['2', false],
      ['3', false],
      ['4', true],
    ],
  );
  t.equal(mediaSections('v=0\r\nm=audio 9 RTP/AVP 0\r\n')[0]?.mid, null, 'no a=mid: null');
});

t.test('port 0 is a rejected section, unless bundle-only', async (t) => {
  const rejected = chromeSdp([
    { kind: 'audio', direction: 'sendrecv', port: 0 },
    { kind: 'video', direction: 'sendrecv' },
  ]);
  t.same(sending(rejected), { audio: false, video: true });
  t.equal(mediaSections(rejected)[0]?.rejected, true);
  const bundleOnly = chromeSdp([
    { kind: 'video', direction: 'recvonly' },
    { kind: 'audio', direction: 'sendrecv', port: 0, extra: ['a=bundle-only'] },
  ]);
  t.same(sending(bundleOnly), { audio: true, video: false }, 'a bundle-only section with port 0 is live');
});

t.test('several sections of a kind: any sending one counts', async (t) => {
  const sdp = chromeSdp([
    { kind: 'audio', direction: 'recvonly' },
    { kind: 'video', direction: 'recvonly' },
    { kind: 'audio', direction: 'inactive' },
    { kind: 'video', direction: 'sendonly' },
  ]);
  t.same(sending(sdp), { audio: false, video: true });
  t.equal(mediaSections(sdp).length, 4);
  const hidden = chromeSdp([
    { kind: 'audio', direction: 'recvonly' },
    { kind: 'video', direction: 'recvonly' },
    { kind: 'audio', direction: 'sendrecv' },
  ]);
  t.same(sending(hidden), { audio: true, video: false }, 'a second audio section that sends is found');
});

t.test('LF line endings read like CRLF', async (t) => {
  const lf = sendrecvOffer.replace(/\r\n/g, '\n');
  t.same(sending(lf), { audio: true, video: true });
  t.same(sending(recvonlyOffer.replace(/\r\n/g, '\n')), { audio: false, video: false });
  t.equal(malformation(lf), null);
  t.equal(malformation(sendrecvOffer), null);
});

t.test('the reading leans towards "sends" on anything irregular', async (t) => {
  const variants: [string, string][] = [
    ['a=recvonly ', 'trailing blank after recvonly'],
    ['a=RECVONLY', 'upper-case recvonly'],
    [' a=recvonly', 'leading blank'],
    ['a=recvonly\r\na=sendrecv', 'a second, contradicting direction'],
    ['a=recvonly\r\na= sendonly', 'a sendonly with a blank'],
  ];
  for (const [direction, why] of variants) {
    const sdp = chromeSdp([{ kind: 'audio', direction }]);
    t.equal(sending(sdp).audio, true, why);
  }
  t.equal(
    sending(chromeSdp([{ kind: 'audio', direction: 'recvonly' }]).replace('m=audio', 'M=AUDIO')).audio,
    false,
    'upper-case m line still a section',
  );
  t.equal(
    sending(chromeSdp([{ kind: 'audio', direction: 'sendrecv' }]).replace('m=audio', 'm=AUDIO')).audio,
    true,
    'the kind is compared case-insensitively',
  );
  t.equal(
    sending(chromeSdp([{ kind: 'audio', direction: 'sendrecv' }]).replace('m=audio 9 ', 'm=audio x ')).audio,
    true,
    'an unreadable port is live',
  );
  t.equal(
    sending(chromeSdp([{ kind: 'audio', direction: 'sendrecv', port: 0 }]).replace('m=audio 0 ', 'm=audio 0/2 ')).audio,
    false,
    'port 0/2 is 0',
  );
});

t.test('malformed text is named', async (t) => {
  t.match(malformation('v=0\ra=recvonly\r\n'), /carriage return/);
  t.match(malformation('v=0\r\na=recvonly\r\r\n'), /carriage return/);
  t.match(malformation('v=0\r\na=recv\u0000only\r\n'), /control/);
  t.equal(malformation('v=0\r\ns=Réunion\tà deux\r\n'), null, 'non-ASCII text and tabs are fine');
});

t.test('nothing in, nothing sent', async (t) => {
  t.same(sending(''), { audio: false, video: false });
  t.same(mediaSections('v=0\r\n'), []);
});
