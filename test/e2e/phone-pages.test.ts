// Issue 17 point 6, the tiles on a phone: at 390×844 a meeting of five shows four tiles (two by
// two) and pages to the rest with Previous and Next buttons that have accessible names; the page
// it is on ("Page 2 of 2") is shown and announced. Four or fewer: no pager. A wide window: one
// grid, no pager. The other four people are live connections from Node (no camera): the test
// is about the page's layout, and five browsers with cameras would starve two cores.
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { connectLive, type LiveClient } from '../helpers/live.js';
import { asSession, moderator } from '../helpers/waiting.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';

const visibleTiles = (page: Page) =>
  page.getByRole('list', { name: 'Video of the participants' }).getByRole('listitem').count();

t.setTimeout(180_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('five people on a phone: four tiles a page, Previous and Next, "Page 1 of 2"', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'pages', name: 'Pages', waiting_room: 'all' });
    const browser = await openBrowser(t);
    const { page } = await browser.newPage('phone');
    await page.setViewportSize({ width: 390, height: 844 });
    const link = await call(d, '/api/rooms/pages/links', { method: 'POST', json: { role: 'moderator', name: 'Ada' } });
    await page.goto(`${d.url}${link.body.url}`);
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('button', { name: 'Mute microphone' }).waitFor();

    const others: LiveClient[] = [];
    for (const name of ['Ben', 'Cy', 'Dee']) {
      const { client } = await connectLive(d, 'pages', (await moderator(d, 'pages', name)).session);
      others.push(client);
    }
    t.teardown(() => others.forEach((c) => c.socket.close()));
    await page.getByRole('listitem', { name: 'Dee' }).waitFor();
    t.equal(await visibleTiles(page), 4, 'four people: four tiles');
    t.equal(await page.getByRole('group', { name: 'Pages of video' }).isVisible(), false, 'and no pager');

    const eveSession = (await moderator(d, 'pages', 'Eve')).session;
    const { client: eve } = await connectLive(d, 'pages', eveSession);
    others.push(eve);
    const pager = page.getByRole('group', { name: 'Pages of video' });
    await pager.waitFor();
    t.equal(await pager.getByText('Page 1 of 2').isVisible(), true, 'the pager says which page');
    t.equal(await visibleTiles(page), 4, 'five people on a phone: four tiles on the first page');
    t.equal(await page.getByRole('listitem', { name: 'Eve' }).isVisible(), false, 'the fifth is on the next page');
    const next = pager.getByRole('button', { name: 'Next page of video' });
    const previous = pager.getByRole('button', { name: 'Previous page of video' });
    t.equal(await previous.getAttribute('aria-disabled'), 'true', 'no page before the first');
    for (const name of ['Next page of video', 'Mute microphone', 'Leave meeting']) {
      const b = await page.getByRole('button', { name, exact: true }).boundingBox();
      t.ok(b && b.y >= 0 && b.y + b.height <= 844, `${name} is on screen without scrolling`);
    }
    await browser.checkAccessibility(page, 'the phone meeting page with a pager');

    await next.focus();
    const mark = await saidCount(page);
    await page.keyboard.press('Enter');
    await pager.getByText('Page 2 of 2').waitFor();
    t.equal(await visibleTiles(page), 1, 'the second page holds the fifth');
    t.ok(await page.getByRole('listitem', { name: 'Eve' }).isVisible(), 'Eve is there');
    t.equal(
      await untilSaid(page, 'Page 2 of 2', { since: mark, exact: true, ms: 5000 }),
      'Page 2 of 2',
      'the page turned is announced',
    );
    t.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Next page of video',
      'the focus stays on Next (aria-disabled, not disabled)',
    );
    t.equal(await next.getAttribute('aria-disabled'), 'true', 'no page after the last');
    await page.keyboard.press('Enter');
    t.ok(await pager.getByText('Page 2 of 2').isVisible(), 'Next at the end does nothing');

    // A wide window shows everyone in one grid.
    await page.setViewportSize({ width: 1280, height: 800 });
    await pager.waitFor({ state: 'hidden' });
    t.equal(await visibleTiles(page), 5, 'a wide window: all five, no pages');
    await page.setViewportSize({ width: 390, height: 844 });
    await pager.waitFor();

    // Eve leaves: four fit one page again, and the pager goes.
    await asSession.leave(d, 'pages', eveSession);
    await page.getByRole('listitem', { name: 'Eve' }).waitFor({ state: 'detached', timeout: 30_000 });
    await pager.waitFor({ state: 'hidden' });
    t.equal(await visibleTiles(page), 4, 'back to one page of four');
  });
}
