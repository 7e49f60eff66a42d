// Issue 18 point 6: which tiles are on screen (the grid's pages of 25, a phone's of 4, speaker
// view's large tile and strip), and the `view` the page tells the server from it.
import t from 'tap';
import { arrange, columnsFor, phonePageSize, viewOf, type ArrangeInput } from '../../../src/web/tile-arrangement.js';

const people = (n: number) => Array.from({ length: n }, (_, i) => `p${i + 1}`);
const base: ArrangeInput = {
  ids: people(27),
  mode: 'grid',
  phone: false,
  self: 'p1',
  speaker: null,
  sharing: null,
  page: 0,
};

t.test('the grid: 25 a page, the rest on the next; a phone 4 a page; the page stays in range', async (t) => {
  const first = arrange(base);
  t.same([first.large, first.shown.length, first.page, first.pages], [null, 25, 0, 2]);
  t.same(arrange({ ...base, page: 1 }).shown, ['p26', 'p27']);
  t.equal(arrange({ ...base, page: 9 }).page, 1, 'a page past the end is the last');
  t.same(arrange({ ...base, ids: people(25) }).pages, 1, 'exactly 25: one page');
  const phone = arrange({ ...base, phone: true, page: 6 });
  t.same([phone.shown, phone.pages], [['p25', 'p26', 'p27'], 7]);
});

t.test('speaker view: the last speaker large, the others in a strip of eight (three on a phone)', async (t) => {
  const view = arrange({ ...base, mode: 'speaker', speaker: 'p12' });
  t.equal(view.large, 'p12');
  t.same(view.shown, ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8']);
  t.equal(view.pages, 4, '26 others, eight a strip');
  t.equal(
    arrange({ ...base, mode: 'speaker', speaker: 'gone' }).large,
    'p2',
    'before anyone speaks (or once the speaker left): the first other person',
  );
  t.equal(arrange({ ...base, mode: 'speaker', ids: ['p1'] }).large, null, 'alone: no large tile');
  t.equal(arrange({ ...base, mode: 'speaker', phone: true, speaker: 'p3' }).shown.length, 3);
});

t.test('a shared screen is large in either layout', async (t) => {
  t.equal(arrange({ ...base, sharing: 'p5' }).large, 'p5');
  t.equal(arrange({ ...base, mode: 'speaker', speaker: 'p9', sharing: 'p5' }).large, 'p5', 'before the speaker');
});

t.test('the view told to the server: the others on screen and the large one, never herself', async (t) => {
  t.same(viewOf(arrange({ ...base, ids: people(4) }), 'p1'), { video: ['p2', 'p3', 'p4'] });
  t.same(viewOf(arrange({ ...base, page: 1 }), 'p1'), { video: ['p26', 'p27'] }, 'off the page: not shown');
  t.same(viewOf(arrange({ ...base, ids: people(4), mode: 'speaker', speaker: 'p3' }), 'p1'), {
    video: ['p3', 'p1', 'p2', 'p4'].filter((id) => id !== 'p1'),
    large: 'p3',
  });
  t.same(
    viewOf(arrange({ ...base, ids: people(3), sharing: 'p1' }), 'p1'),
    { video: ['p2', 'p3'] },
    'her own screen is large on her page, no large video for her',
  );
});

// Issue 31 point 7: no video cut to a thin strip on a phone. Columns for 1, 2, 3-4 and more
// people, on a wide screen and on a phone held either way (a phone's page holds four).
t.test('the grid is laid out for the count and the screen: no thin strips on a phone', async (t) => {
  const wide = { phone: false, landscape: true };
  const upright = { phone: true, landscape: false };
  const onItsSide = { phone: true, landscape: true };
  const columns = (screen: typeof wide) => [1, 2, 3, 4, 5, 9, 10, 25].map((n) => columnsFor(n, screen));
  t.same(columns(wide), [1, 2, 2, 2, 3, 3, 4, 5], 'a wide screen: side by side, then as square as the count allows');
  t.same(
    columns(upright),
    [1, 1, 2, 2, 2, 2, 2, 2],
    'a phone upright: two people one above the other (each half the screen), then two by two',
  );
  t.same(columns(onItsSide), [1, 2, 3, 4, 4, 4, 4, 4], 'a phone on its side: side by side, up to four across');
  t.equal(columnsFor(0, upright), 1, 'nobody on screen: one column');
  // A phone's page never holds more than its columns allow two rows of: the tiles stay large.
  for (const screen of [upright, onItsSide]) {
    const rows = Math.ceil(phonePageSize / columnsFor(phonePageSize, screen));
    t.ok(rows <= 2, `a full page on a phone is at most two rows (${rows})`);
  }
});
