// Issue 17 point 2 in a real browser, on a desktop window and a phone: the waiting screen puts
// her request first (above the devices on a phone, beside them on a wide screen) with "Ask to
// join" in reach without scrolling; after knocking, a status card says "Asking to join…",
// counts the time waited, shows the note she sent and offers Leave, and the focus is on it.
// Still nothing of the meeting on the screen.
import t from 'tap';
import type { Locator, Page } from 'playwright-core';
import { dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';

const roomName = 'Staff Meeting Room';
const sizes = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await locator.boundingBox();
  if (!b) throw new Error('the element is not rendered');
  return b;
}

function onScreen(
  b: { x: number; y: number; width: number; height: number },
  viewport: { width: number; height: number },
): boolean {
  return b.x >= 0 && b.y >= 0 && b.x + b.width <= viewport.width && b.y + b.height <= viewport.height;
}

function focusedText(page: Page): Promise<string> {
  return page.evaluate(() =>
    document.activeElement === document.body ? 'body' : (document.activeElement?.textContent ?? '').trim(),
  );
}

t.setTimeout(240_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  for (const [size, viewport] of Object.entries(sizes)) {
    t.test(
      `the waiting screen: request first, then a status card (${size} ${viewport.width}×${viewport.height})`,
      async (t) => {
        const d = await inProcessDaemonFor(t, dataDirFor(t));
        await rooms.create(d, { room_id: 'staff', name: roomName, waiting_room: 'all' });
        const browser = await openBrowser(t);
        const { page } = await browser.newPage('guest');
        await page.setViewportSize(viewport);
        // The page's clock, so the time waited can be moved on rather than waited for.
        await page.clock.install();
        await page.goto(`${d.url}/room/staff`);
        await page.getByLabel('Your name').fill('Noor');
        // One button (issue 31): the note on the arrival, and Join asks to join.
        await page.getByLabel('Note to the moderator (optional)').fill('I am the new intern');
        const join = page.getByRole('button', { name: 'Join' });
        t.ok(onScreen(await box(join), viewport), '"Join", which asks to join, is visible without scrolling');
        await join.click();

        const request = page.getByRole('region', { name: 'Your request to join' });
        const devices = page.getByRole('region', { name: 'Your devices' });
        const ask = request.getByRole('button', { name: 'Ask to join' });
        await request.getByText('Asking to join…').waitFor();
        const [r, dv] = [await box(request), await box(devices)];
        if (size === 'phone')
          t.ok(r.y + r.height <= dv.y + 1, 'on a phone the request comes first, the devices below it');
        else
          t.ok(Math.abs(r.y - dv.y) < 2 && r.x < dv.x, 'on a wide screen the request and the devices are side by side');
        t.equal(await focusedText(page), 'Asking to join…', 'the focus moves to the status card, not to the body');
        t.ok(
          await request.getByText('Waiting for a moderator to let you in.').isVisible(),
          'the card says what happens',
        );
        t.match(await request.innerText(), /Your note: I am the new intern/, 'the card shows the note she sent');
        t.equal(
          await request.getByLabel('Note to the moderator (optional)').isVisible(),
          false,
          'the form is replaced by the card',
        );
        const waited = request.locator('.waited-time');
        const before = await waited.innerText();
        t.match(before, /^0:0\d$/, 'the time waited, in minutes and seconds');
        await page.clock.fastForward(2200);
        t.not(await waited.innerText(), before, 'the time waited keeps counting');
        const leave = request.getByRole('button', { name: 'Leave' });
        t.ok(onScreen(await box(leave), viewport), 'Leave is visible without scrolling');
        t.notMatch(await page.locator('body').innerText(), roomName, 'nothing names the meeting');
        await browser.screenshot(page, `waiting-card-${size}`);

        // Leave: her request is withdrawn, the form comes back with her note and the focus on "Ask to join".
        await leave.click();
        await ask.waitFor();
        t.equal(await focusedText(page), 'Ask to join', 'after Leave the focus is on "Ask to join"');
        t.equal(
          await request.getByLabel('Note to the moderator (optional)').inputValue(),
          'I am the new intern',
          'her note is kept',
        );
      },
    );
  }
}
