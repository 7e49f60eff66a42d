// Issue 32 points 1 and 5 in Chromium: the home page at `/` on a desktop and a phone, in English
// and German (the browser's language, as the room page chooses it), checked by axe. From the home
// page a pupil types the room's readable code with spaces and capitals, lands on that room's
// arrival screen (its address written as the id), asks to join, and is admitted by the moderator
// (the rooms API's admit, as an integration or My rooms does it). The home page asks the server
// nothing about rooms, refuses what is no code without naming any room, and works from the keyboard.
import t from 'tap';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { until } from '../helpers/net.js';
import { de } from '../../src/web/words/de.js';
import { en } from '../../src/web/words/en.js';

t.setTimeout(120_000);

// Each size and each language once (a fresh page costs axe's injection, seconds on two shared cores).
const screens = [
  { size: 'desktop', viewport: { width: 1280, height: 800 }, locale: 'en-GB', words: en },
  { size: 'phone', viewport: { width: 390, height: 844 }, locale: 'de-DE', words: de },
] as const;

/**
 * How each types the code: with spaces and capitals (the home page reads it as the id), or in
 * capitals without dashes, which is also a valid id as typed, so the arrival asks for it as it
 * stands and then for the readable id it stands for.
 */
const typedForms = {
  desktop: (id: string) => ` ${id.toUpperCase().replaceAll('-', ' ')} `,
  phone: (id: string) => id.toUpperCase().replaceAll('-', ''),
};

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('from / to a started meeting: a code typed with spaces and capitals, a knock, an admission', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    const made = await rooms.create(d, { name: 'Year 7 Maths', waiting_room: 'all' });
    const roomId = made.body.room_id as string;
    t.match(roomId, /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/, `the room got a readable id (${roomId})`);
    const browser = await openBrowser(t);
    browser.expectConsoleErrors(
      new RegExp(`404 GET .*/room/${roomId.toUpperCase().replaceAll('-', '')}/exists$`),
      'the arrival asks for the id as typed (no room) before the readable id it stands for',
    );

    for (const { size, viewport, locale, words } of screens) {
      const lang = words === de ? 'de' : 'en';
      const context = await browser.browser.newContext({ viewport, locale, permissions: ['camera', 'microphone'] });
      const page = await context.newPage();
      const asked: string[] = [];
      page.on('request', (request) => asked.push(new URL(request.url()).pathname));
      await page.goto(`${d.url}/`);
      const heading = page.getByRole('heading', { level: 1, name: words.home.heading });
      await heading.waitFor();
      t.equal(await page.evaluate(() => document.documentElement.lang), lang, `${size} ${lang}: <html lang>`);
      t.equal(await page.title(), words.home.title, 'the title in the language');
      const code = page.getByRole('textbox', { name: words.home.codeLabel });
      const signIn = page.getByRole('link', { name: words.home.signIn });
      t.equal(await signIn.count(), 2, 'Sign in in the bar and for organisers');
      t.equal(await signIn.first().getAttribute('href'), '/signin', 'Sign in leads to /signin');
      t.ok(await code.isVisible(), 'the code field is on screen');
      const join = page.getByRole('button', { name: words.home.join, exact: true });
      const box = await join.boundingBox();
      t.ok(box && box.y + box.height <= viewport.height, 'Join is on screen without scrolling');
      const shown = await page.locator('body').innerText();
      t.ok(!shown.includes('Year 7 Maths') && !shown.includes(roomId), 'the home page names no room');
      await browser.checkAccessibility(page, `the home page (${size}, ${lang})`);
      await browser.screenshot(page, `home-${size}-${lang}`);

      // What is no code is said at once, naming no room; the focus stays in the field.
      await code.fill('Ѕecret room!');
      await code.press('Enter');
      const alert = page.getByRole('alert');
      await alert.getByText(words.home.notACode).waitFor();
      t.equal(await code.getAttribute('aria-invalid'), 'true', 'the field says it was refused');
      t.ok(await code.evaluate((e) => e === document.activeElement), 'the focus is in the field');
      await code.fill('');
      await join.click();
      await alert.getByText(words.home.empty).waitFor();
      if (size === 'desktop') await browser.checkAccessibility(page, `the home page with a refusal (${size}, ${lang})`);
      t.same(
        asked.filter((p) => p.startsWith('/room/') || p.startsWith('/api/')),
        [],
        'the home page asked the server nothing about rooms',
      );

      // From the keyboard: the code typed with spaces and capitals, Enter.
      await code.focus();
      await page.keyboard.type(typedForms[size](roomId));
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: words.arrival.heading }).waitFor();
      t.equal(new URL(page.url()).pathname, `/room/${roomId}`, "the room's arrival, its address the id");
      t.notMatch(await page.locator('body').innerText(), 'Year 7 Maths', 'nothing names the meeting before entry');
      const name = size === 'phone' ? 'Noor' : 'Ben';
      await page.getByLabel(words.arrival.yourName).fill(name);
      await page.getByRole('button', { name: words.arrival.join, exact: true }).click();
      await page.getByText(words.waiting.asking).waitFor();

      // The moderator admits her.
      let requests: { request_id: string; name: string }[] = [];
      await until('her request reaches the waiting list', async () => {
        requests = (await call(d, `/api/rooms/${roomId}/waiting`)).body as typeof requests;
        return requests.some((r) => r.name === name);
      });
      const request = requests.find((r) => r.name === name)!;
      const admitted = await call(d, `/api/rooms/${roomId}/waiting/${request.request_id}/admit`, {
        method: 'POST',
        json: {},
      });
      t.equal(admitted.status, 200, 'admitted');
      await page.getByRole('button', { name: words.toolbar.leave }).waitFor({ timeout: 30_000 });
      await page.waitForFunction(() => document.title === 'Year 7 Maths');
      t.pass('inside, the meeting is named');
      await browser.screenshot(page, `home-to-meeting-${size}-${lang}`);
      await page.getByRole('button', { name: words.toolbar.leave }).click();
      await context.close();
    }
  });
}
