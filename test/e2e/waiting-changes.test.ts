// Issue 15 point 4 in real Chromium: the moderator's page holds the waiting list from one whole
// list and then changes in sequence. A change lost on the way (dropped here by a WebSocket route
// between page and daemon) leaves a gap: the page asks for the whole list once, and shows it.
import t from 'tap';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { until as untilEvery } from '../helpers/net.js';
import { Browser } from '../helpers/waiting.js';

const until = (what: string, check: () => Promise<boolean>, ms = 30_000) => untilEvery(what, check, ms, 100);

t.setTimeout(180_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('the page applies changes in order and asks for the whole list on a gap', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'hall', name: 'Hall', waiting_room: 'all' });
    const browser = await openBrowser(t);
    const { page, errors } = await browser.newPage('moderator');

    // Every frame passes through this route; the second waiting_changes never reaches the page.
    const fromServer: { type: string; seq?: number }[] = [];
    const fromPage: string[] = [];
    let changesSeen = 0;
    await page.routeWebSocket(/\/live\?/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        fromPage.push(String(message));
        server.send(message);
      });
      server.onMessage((message) => {
        const parsed = JSON.parse(String(message)) as { type: string; seq?: number };
        fromServer.push(parsed);
        if (parsed.type === 'waiting_changes' && ++changesSeen === 2) return;
        ws.send(message);
      });
    });

    const link = await call(d, '/api/rooms/hall/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Teacher' },
    });
    await page.goto(`${d.url}${link.body.url}`);
    await page.getByText('Joining as Teacher').waitFor();
    await page.getByRole('button', { name: 'Join' }).click();
    const section = page.getByRole('region', { name: 'Waiting' });
    await section.getByText('Nobody is waiting.').waitFor();

    const knock = async (name: string, n: number) => {
      const guest = new Browser(d, 'hall', { forwardedFor: `198.51.100.${n}` });
      t.equal((await guest.knock({ name, note: '' })).status, 202, `${name} knocks`);
      return guest;
    };
    const guests = [await knock('Ann', 1)];
    await section.getByRole('button', { name: 'Admit Ann' }).waitFor();
    guests.push(await knock('Ben', 2));
    await until('the dropped change passed the route', async () => changesSeen >= 2);
    t.equal(
      await section.getByRole('button', { name: 'Admit Ben' }).count(),
      0,
      'the lost change: Ben is not shown yet',
    );

    guests.push(await knock('Cy', 3));
    await section.getByRole('button', { name: 'Admit Cy' }).waitFor();
    await section.getByRole('button', { name: 'Admit Ben' }).waitFor();
    t.same(
      fromPage.filter((m) => m.includes('waiting_resync')).map((m) => JSON.parse(m) as unknown),
      [{ type: 'waiting_resync' }],
      'the gap made the page ask for the whole list, once',
    );
    t.same(
      fromServer.filter((m) => m.type === 'waiting_list').map((m) => m.seq),
      [0, 3],
      'whole lists: on connect, and the answer at the seq of the last change',
    );
    const rowsText = await section.locator('li').allInnerTexts();
    t.same(
      rowsText.map((text) => text.split('\n')[0]),
      ['Ann', 'Ben', 'Cy'],
      'the list in knock order',
    );

    // From the panel: admit Ben; his row says Admitted in its place for a moment (issue 31 point 4), then
    // the list closes up: his row only.
    await section.getByRole('button', { name: 'Admit Ben' }).click();
    await until(
      'Ben gone from the panel',
      async () => !(await section.locator('li').allInnerTexts()).some((text) => text.split('\n')[0] === 'Ben'),
    );
    t.same(
      (await section.locator('li').allInnerTexts()).map((text) => text.split('\n')[0]),
      ['Ann', 'Cy'],
    );
    t.equal((await guests[1]!.poll()).body?.status, 'admitted', 'Ben was let in');

    // Everyone leaves the list: the panel says so.
    for (const guest of [guests[0]!, guests[2]!]) await guest.withdraw();
    await section.getByText('Nobody is waiting.').waitFor();
    t.same(errors, [], 'no page errors');
  });
}
