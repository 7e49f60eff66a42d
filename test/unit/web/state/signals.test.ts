// Issue 31 point 12: the meeting's signals as pure functions (src/web/state/signals.ts): the
// initials of a camera-off tile, the speaking outline from the received audio's level, "you are
// muted" when she talks while muted, the chat's unread count, and the connection's quality from
// the page's own WebRTC statistics (round trip and loss).
import t from 'tap';
import {
  initialsOf,
  levelsBetween,
  linkBetween,
  mutedTalkAfter,
  mutedTalkMs,
  mutedTellAgainMs,
  notTalking,
  pictureOf,
  qualityOf,
  readingOf,
  silent,
  speakingHoldMs,
  unreadAfter,
  voiceAfter,
  type MutedTalk,
  type Reading,
  type Stat,
} from '../../../../src/web/state/signals.js';

t.test('initials: one or two letters from the first and last word, Unicode-aware', async (t) => {
  const cases: [string, string][] = [
    ['Ada Lovelace', 'AL'],
    ['ada', 'A'],
    ['Marie Salomea Skłodowska Curie', 'MC'],
    ['  Özlem   Yılmaz ', 'ÖY'],
    ['élodie durand', 'ÉD'],
    // A decomposed É (E and a combining accent) is one letter, kept whole.
    ['E\u0301mile Zola', 'ÉZ'],
    ['Ms Keller', 'MK'],
    ['(Ben) Krüger', 'BK'],
    ['王小明', '王'],
    ['Σωκράτης Παππάς', 'ΣΠ'],
    ['Дмитрий Шостакович', 'ДШ'],
    ['ǆenan đurić', 'ǄĐ'],
    ['😀 Zoe', 'Z'],
    ['7B Team', '7T'],
    ['🙂 🙃', ''],
    ['', ''],
  ];
  for (const [name, initials] of cases) t.equal(initialsOf(name), initials, JSON.stringify(name));
  t.ok([...initialsOf('Anna Łukasiewicz')].length <= 2, 'never more than two letters');
});

/** Statistics as a page's getStats() gives them (only the fields read). */
const inboundAudio = (track: string, energy: number, seconds: number, received = 0, lost = 0): Stat => ({
  type: 'inbound-rtp',
  kind: 'audio',
  trackIdentifier: track,
  totalAudioEnergy: energy,
  totalSamplesDuration: seconds,
  packetsReceived: received,
  packetsLost: lost,
});
const pair = (rttSeconds: number, nominated = true): Stat => ({
  type: 'candidate-pair',
  state: 'succeeded',
  nominated,
  currentRoundTripTime: rttSeconds,
});

t.test('levels of received voices from the energy they gained between two readings', async (t) => {
  const before = readingOf([inboundAudio('a', 1, 10), inboundAudio('b', 0.5, 10)]);
  // a: 0.0225 energy in 0.25 s → mean square 0.09 → level 0.3; b: silent.
  const after = readingOf([inboundAudio('a', 1.0225, 10.25), inboundAudio('b', 0.5, 10.25), inboundAudio('c', 2, 5)]);
  const levels = levelsBetween(before, after);
  t.ok(Math.abs(levels.get('a')! - 0.3) < 1e-9, `a speaks at 0.3 (${levels.get('a')})`);
  t.equal(levels.get('b'), 0, 'b is silent');
  t.notOk(levels.has('c'), 'a track first seen now has no level yet');
  t.equal(levelsBetween(null, after).size, 0, 'the first reading: nothing to compare');
  const video: Stat = { type: 'inbound-rtp', kind: 'video', trackIdentifier: 'v', packetsReceived: 5 };
  t.notOk(readingOf([video]).audio.has('v'), 'video has no level');
});

t.test('the speaking outline: on at once when loud, off after a quiet hold', async (t) => {
  let voice = voiceAfter(silent, 0.3, 1000);
  t.equal(voice.speaking, true, 'loud: speaking');
  voice = voiceAfter(voice, 0.001, 1000 + speakingHoldMs - 100);
  t.equal(voice.speaking, true, 'a pause between words keeps the outline');
  voice = voiceAfter(voice, 0.001, 1000 + speakingHoldMs + 50);
  t.equal(voice.speaking, false, 'quiet for the hold: no longer speaking');
  t.equal(voiceAfter(silent, 0.005, 0).speaking, false, 'background noise is not speech');
});

t.test('"You are muted": after a moment of talking while muted, then not again for a while', async (t) => {
  let talk: MutedTalk = notTalking;
  const told: number[] = [];
  const feed = (from: number, to: number, muted: boolean, loud: boolean) => {
    for (let now = from; now <= to; now += 100) {
      const step = mutedTalkAfter(talk, { muted, loud, now });
      talk = step.talk;
      if (step.tell) told.push(now);
    }
  };
  feed(0, 5000, false, true);
  t.same(told, [], 'talking with the microphone on: nothing to say');
  feed(5100, 5100 + mutedTalkMs - 200, true, true);
  t.same(told, [], 'a cough while muted: nothing yet');
  feed(5700, 6000, true, false);
  feed(6100, 6100 + mutedTalkMs, true, true);
  t.same(told, [6100 + mutedTalkMs], 'a moment of talking while muted: told once');
  feed(7000, 7000 + 10_000, true, true);
  t.same(told.length, 1, 'not again while she goes on');
  feed(17_100, 6100 + mutedTalkMs + mutedTellAgainMs + 1000, true, true);
  t.equal(told.length, 2, 'again after a while');
  // Short gaps between words are one talk.
  talk = notTalking;
  let tells = 0;
  for (let now = 0; now < 2000; now += 100) {
    const loud = now % 300 !== 0;
    const step = mutedTalkAfter(talk, { muted: true, loud, now });
    talk = step.talk;
    if (step.tell) tells += 1;
  }
  t.equal(tells, 1, 'speech with short gaps counts as talking');
});

t.test('unread chat: others’ messages while the chat is hidden; showing it clears', async (t) => {
  let unread = 0;
  unread = unreadAfter(unread, { type: 'message', mine: false, shown: false });
  unread = unreadAfter(unread, { type: 'message', mine: true, shown: false });
  unread = unreadAfter(unread, { type: 'message', mine: false, shown: false });
  unread = unreadAfter(unread, { type: 'message', mine: false, shown: false });
  t.equal(unread, 3, 'three from others; her own does not count');
  t.equal(unreadAfter(unread, { type: 'shown' }), 0, 'the chat shown: read');
  t.equal(unreadAfter(0, { type: 'message', mine: false, shown: true }), 0, 'read as it comes while shown');
});

t.test('connection quality from round trip and loss: good, fair, poor', async (t) => {
  t.equal(qualityOf({ rttMs: null, loss: null }), null, 'nothing measured: no verdict');
  t.equal(qualityOf({ rttMs: 40, loss: 0 }), 'good');
  t.equal(qualityOf({ rttMs: 40, loss: null }), 'good', 'a round trip alone is enough');
  t.equal(qualityOf({ rttMs: 220, loss: 0 }), 'fair', 'a slow round trip');
  t.equal(qualityOf({ rttMs: 40, loss: 0.04 }), 'fair', 'some loss');
  t.equal(qualityOf({ rttMs: 600, loss: 0 }), 'poor', 'a very slow round trip');
  t.equal(qualityOf({ rttMs: 40, loss: 0.15 }), 'poor', 'heavy loss');

  const first = readingOf([inboundAudio('a', 0, 0, 1000, 0), pair(0.02), pair(0.9, false)]);
  t.equal(first.rttMs, 20, 'the round trip of the pair in use (not a candidate pair never nominated)');
  const lossy = readingOf([inboundAudio('a', 0, 0, 1090, 10), pair(0.03)]);
  const sample = linkBetween(first, lossy);
  t.same(sample, { rttMs: 30, loss: 0.1 }, '10 lost of 100 since the last reading');
  t.equal(qualityOf(sample), 'poor');
  t.equal(linkBetween(first, readingOf([inboundAudio('a', 0, 0, 1005, 1)])).loss, null, 'too few packets to judge');
  const reported = readingOf([{ type: 'remote-inbound-rtp', fractionLost: 0.05, roundTripTime: 0.1 }]);
  t.same(linkBetween(null, reported), { rttMs: 100, loss: 0.05 }, 'the loss the other end reports for what she sends');
  const answering = readingOf([
    { type: 'transport', selectedCandidatePairId: 'CP1' },
    { ...pair(0.05, false), id: 'CP1' },
    { ...pair(0.7, false), id: 'CP2' },
  ]);
  t.equal(answering.rttMs, 50, 'the pair the transport selected, nominated or not (the answering side)');
  const two = readingOf([pair(0.02), pair(0.3)]);
  t.equal(two.rttMs, 300, 'several connections (a mesh): the worst one');
});

t.test('a connection that degrades reads poor from its statistics, and good again once it recovers', async (t) => {
  // Readings as the page takes them (a mesh of two connections), judged between each two.
  const at = (received: number, lost: number, rtt: number[], remoteLoss?: number): Stat[] => [
    inboundAudio('a', 0, 0, received, lost),
    ...rtt.map((r) => pair(r)),
    ...(remoteLoss === undefined
      ? []
      : [{ type: 'remote-inbound-rtp', fractionLost: remoteLoss, roundTripTime: 0.02 }]),
  ];
  const steps: [string, Stat[]][] = [
    ['loopback', at(0, 0, [0.01, 0.01])],
    ['loopback', at(500, 0, [0.01, 0.01])],
    ['one connection slow (600 ms)', at(1000, 0, [0.01, 0.6])],
    ['both fast again, 20 % lost', at(1400, 100, [0.02, 0.02])],
    ['the far end reports 12 % of hers lost', at(1900, 100, [0.02, 0.02], 0.12)],
    ['recovered', at(2400, 100, [0.02, 0.02], 0)],
  ];
  let before: Reading | null = null;
  const verdicts: (string | null)[] = [];
  for (const [, stats] of steps) {
    const reading = readingOf(stats);
    verdicts.push(qualityOf(linkBetween(before, reading)));
    before = reading;
  }
  t.same(verdicts, ['good', 'good', 'poor', 'poor', 'poor', 'good'], steps.map(([what]) => what).join(' → '));
});

t.test(
  "a camera-off tile's picture (issue 33 point 8): an http(s) avatar_url not yet failed, else the initials",
  async (t) => {
    const pic = 'https://lms.example.org/pictures/tina.png';
    t.equal(pictureOf(pic, new Set()), pic);
    t.equal(pictureOf('http://lms.example.org/p.png', new Set()), 'http://lms.example.org/p.png');
    t.equal(pictureOf(undefined, new Set()), null, 'none given: the initials');
    t.equal(pictureOf(pic, new Set([pic])), null, 'failed to load: the initials');
    for (const odd of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'not a url', ''])
      t.equal(pictureOf(odd, new Set()), null, `${odd || 'empty'}: the initials`);
  },
);
