// Issue 31, points 12 and 7, in Chromium: what the page measures itself and shows (the speaking
// outline from the audio it receives, "You are muted" when she talks while muted, a camera-off
// tile's initials, the connection's quality, the Chat button's unread count), then the meeting on
// a touch phone held either way (tiles laid out per count and orientation, 48 px targets 8 px
// apart, no tooltip left by a tap, no Share where the browser cannot share). One daemon, one
// Chromium whose microphones play a continuous tone (the default fake device only beeps briefly
// each second); the people beyond the two browsers are live connections from Node (no media).
// The logic (initials, levels, quality, columns) is tested in test/unit/web/.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser, withoutSpeakingReports } from '../helpers/browser.js';
import { connectLive, type LiveClient } from '../helpers/live.js';
import { until } from '../helpers/net.js';
import { moderator } from '../helpers/waiting.js';
import { toneWav } from '../helpers/tone-wav.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';

const room = 'signals';
/** Ben's page is in German (`?lang=de`): the signals he sees are checked in that language. */
const de = {
  join: 'Teilnehmen',
  mute: 'Mikrofon stummschalten',
  cameraOff: 'Kamera ausschalten',
  stage: 'Konferenz',
  tiles: 'Video der Teilnehmenden',
  youAreMuted: 'Ihr Mikrofon ist stummgeschaltet. Schalten Sie es ein, um gehört zu werden.',
  message: 'Chatnachricht',
};

async function linkFor(d: InProcessDaemon, role: 'moderator' | 'participant', name: string): Promise<string> {
  const link = await call(d, `/api/rooms/${room}/links`, { method: 'POST', json: { role, name } });
  return `${d.url}${link.body.url}`;
}

/** Opens her link and joins (the room has no waiting room): in once her microphone button is there. */
async function enter(page: Page, url: string, words = { join: 'Join', mute: 'Mute microphone' }): Promise<void> {
  page.setDefaultTimeout(60_000);
  await page.goto(url);
  await page.getByRole('button', { name: words.join }).click();
  await page.getByRole('button', { name: words.mute }).waitFor();
}

const tile = (page: Page, name: string, list = 'Video of the participants') =>
  page.getByRole('list', { name: list }).getByRole('listitem', { name });
const hasClass = async (locator: Locator, name: string) =>
  ((await locator.getAttribute('class')) ?? '').split(/\s+/).includes(name);
/** Whether `check` comes true within `ms`: each signal is its own assertion (on old code each fails alone). */
const soon = (check: () => Promise<boolean>, ms = 10_000) =>
  until('', check, ms, 100).then(
    () => true,
    () => false,
  );
/** The initials shown on a tile ('' when none is shown). */
const initialsOn = (li: Locator) =>
  li.evaluate((e) => {
    const initials = e.querySelector('.initials');
    return initials && getComputedStyle(initials).display !== 'none' ? (initials.textContent ?? '') : '';
  });

type Box = { x: number; y: number; width: number; height: number };
/** The distance between two rectangles (0 when they touch or overlap). */
function gap(a: Box, b: Box): number {
  const dx = Math.max(0, b.x - (a.x + a.width), a.x - (b.x + b.width));
  const dy = Math.max(0, b.y - (a.y + a.height), a.y - (b.y + b.height));
  return Math.hypot(dx, dy);
}

/** Every visible control of the toolbar: at least 48 × 48 px, 8 px or more from its neighbours, on screen. */
async function checkTargets(t: Test, page: Page, what: string, toolbar = 'Meeting controls'): Promise<void> {
  const viewport = page.viewportSize()!;
  const buttons = page.getByRole('toolbar', { name: toolbar }).getByRole('button');
  const boxes: (Box & { name: string })[] = [];
  for (const b of await buttons.all()) {
    const box = await b.boundingBox();
    if (box) boxes.push({ ...box, name: (await b.getAttribute('aria-label')) ?? '?' });
  }
  t.ok(boxes.length >= 5, `${what}: ${boxes.length} controls in the toolbar`);
  const small = boxes.filter((b) => b.width < 47.5 || b.height < 47.5).map((b) => `${b.name} ${b.width}×${b.height}`);
  t.same(small, [], `${what}: every target is 48 px or more`);
  const off = boxes.filter(
    (b) => b.x < 0 || b.y < 0 || b.x + b.width > viewport.width || b.y + b.height > viewport.height,
  );
  t.same(
    off.map((b) => b.name),
    [],
    `${what}: every control on screen without scrolling`,
  );
  let closest = Infinity;
  let pair = '';
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const g = gap(boxes[i]!, boxes[j]!);
      if (g < closest) [closest, pair] = [g, `${boxes[i]!.name} / ${boxes[j]!.name}`];
    }
  t.ok(closest >= 7.5, `${what}: 8 px or more between targets (closest ${closest.toFixed(1)} px: ${pair})`);
}

t.setTimeout(180_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('signals on the tiles and the toolbar; the meeting on a touch phone', async (t) => {
    const voice = join(mkdtempSync(join(tmpdir(), 'meet-voice-')), 'voice.wav');
    writeFileSync(voice, toneWav(440, 3));
    const browser = await openBrowser(t, [`--use-file-for-fake-audio-capture=${voice}`]);
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: room, name: 'Signals', waiting_room: 'off' });
    const others: LiveClient[] = [];
    t.teardown(() => others.forEach((c) => c.socket.close()));

    await t.test('desktop: outline, "You are muted", initials, quality, unread chat', async (t) => {
      const ada = (await browser.newPage('ada')).page;
      await ada.setViewportSize({ width: 1280, height: 800 });
      const { page: ben, context: benContext } = await browser.newPage('ben');
      await ben.setViewportSize({ width: 1280, height: 800 });
      // Ben's page tells the server nothing about his speaking: Ada's outline can only come from
      // the audio her page receives (as for a client that does not report, or Janus's forward).
      await withoutSpeakingReports(benContext);
      // Gone before the phone's part, which counts the people in the room.
      t.teardown(() => Promise.all([ada.close(), ben.close()]));
      await enter(ada, await linkFor(d, 'moderator', 'Ada Lovelace'));
      await enter(ben, `${await linkFor(d, 'participant', 'Ben Krüger')}&lang=de`, de);

      const benOnAda = tile(ada, 'Ben Krüger');
      await benOnAda.waitFor();
      t.ok(
        await soon(() => hasClass(benOnAda, 'speaking'), 20_000),
        'his tile is outlined from the audio she receives',
      );
      t.ok(await ada.getByRole('button', { name: 'Share screen' }).isVisible(), 'a desktop browser may share');

      t.ok(
        await soon(() => ada.getByText('Connection: good').isVisible(), 15_000),
        '"Connection: good" from the page’s own statistics (loopback: no loss, no delay)',
      );
      t.ok(await soon(() => ben.getByText('Verbindung: gut').isVisible(), 15_000), 'in German: "Verbindung: gut"');

      // He mutes while he goes on talking: his page tells him; his outline goes on Ada's page.
      const mark = await saidCount(ben);
      await ben.getByRole('button', { name: de.mute }).click();
      const notice = ben.getByRole('region', { name: de.stage }).getByText(de.youAreMuted);
      t.ok(await soon(() => notice.isVisible()), '"You are muted" (in German) is shown while he talks muted');
      t.equal(
        await untilSaid(ben, de.youAreMuted, { since: mark, exact: true, ms: 5000 }),
        de.youAreMuted,
        'and announced',
      );
      t.ok(await soon(async () => !(await hasClass(benOnAda, 'speaking'))), 'muted, he is no longer outlined');
      await browser.checkAccessibility(ben, 'the meeting with "You are muted"');

      // His camera off: his initials on his tile, on both pages.
      await ben.getByRole('button', { name: de.cameraOff }).click();
      t.ok(await soon(async () => (await initialsOn(benOnAda)) === 'BK'), 'Ada sees his initials');
      t.equal(
        await benOnAda.locator('video').evaluate((v) => getComputedStyle(v).visibility),
        'hidden',
        'not a black picture',
      );
      t.equal(await initialsOn(tile(ben, 'Ben Krüger', de.tiles)), 'BK', 'and so does he (German page)');
      t.equal(await initialsOn(tile(ada, 'Ada Lovelace')), '', 'a camera that is on: no initials');

      // Three messages while Ada's chat is hidden: "Chat, 3 unread"; opening the chat reads them.
      await ben.getByRole('button', { name: 'Chat', exact: true }).click();
      for (const text of ['one', 'two', 'three']) {
        await ben.getByRole('textbox', { name: de.message }).fill(text);
        await ben.getByRole('textbox', { name: de.message }).press('Enter');
        await ada.getByText(text, { exact: true }).waitFor({ state: 'attached' });
      }
      const unread = ada.getByRole('button', { name: 'Chat, 3 unread', exact: true });
      t.ok(await soon(() => unread.isVisible(), 5000), 'Ada’s Chat button says three unread');
      t.same(await ada.locator('.tool .count').allTextContents(), ['3'], 'and shows the number');
      t.ok(await ben.getByRole('button', { name: 'Chat', exact: true }).isVisible(), 'his own are not unread');
      await browser.checkAccessibility(ada, 'the meeting with a camera-off tile, unread chat and the quality');
      await browser.screenshot(ada, 'signals-desktop-camera-off');
      await ada.getByRole('button', { name: /^Chat/ }).click();
      await ada.getByRole('button', { name: 'Chat', exact: true }).waitFor();
      t.equal(await ada.locator('.tool .count').count(), 0, 'the chat opened: nothing unread');

      // His chat closed (its shortcut), hers says something: "Chat, 1 ungelesen" on his German page.
      await ben.keyboard.press('Alt+C');
      await ada.getByRole('textbox', { name: 'Chat message' }).fill('vier');
      await ada.getByRole('textbox', { name: 'Chat message' }).press('Enter');
      t.ok(
        await soon(() => ben.getByRole('button', { name: 'Chat, 1 ungelesen', exact: true }).isVisible(), 5000),
        'his Chat button says one unread, in German',
      );
      await browser.checkAccessibility(ben, 'the German meeting with a camera-off tile, unread chat and the quality');
      await browser.screenshot(ben, 'signals-desktop-de');
    });

    await t.test('a touch phone, upright and on its side: tiles, targets, no tooltips, no Share', async (t) => {
      const context: BrowserContext = await browser.browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 2,
        permissions: ['camera', 'microphone'],
      });
      // A phone's browser has no screen sharing.
      await context.addInitScript(() => {
        if (typeof MediaDevices === 'function')
          delete (MediaDevices.prototype as { getDisplayMedia?: unknown }).getDisplayMedia;
      });
      const page = await context.newPage();
      await enter(page, await linkFor(d, 'moderator', 'Cleo Park'));
      t.equal(await page.getByRole('button', { name: 'Share screen' }).count(), 0, 'no Share where it cannot share');
      await checkTargets(t, page, 'upright');

      // A tap shows no tooltip: a phone's browser leaves the tapped control in :hover, with no
      // pointer to move away and end it. That sticky state is forced through the DevTools protocol.
      t.ok(await page.evaluate(() => matchMedia('(hover: none)').matches), 'the emulated phone cannot hover');
      await page.getByRole('button', { name: 'Mute microphone' }).tap();
      const muted = page.getByRole('button', { name: 'Unmute microphone' });
      await muted.waitFor();
      const cdp = await context.newCDPSession(page);
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', {
        nodeId: root.nodeId,
        selector: 'button[aria-label="Unmute microphone"]',
      });
      await cdp.send('CSS.enable');
      await cdp.send('CSS.forcePseudoState', { nodeId, forcedPseudoClasses: ['hover'] });
      const tip = muted.locator('.tip');
      t.equal(await tip.evaluate((e) => getComputedStyle(e).visibility), 'hidden', 'no tooltip after a tap');
      await cdp.send('CSS.forcePseudoState', { nodeId, forcedPseudoClasses: [] });
      await cdp.detach();
      await page.getByRole('button', { name: 'Unmute microphone' }).tap();

      // Two people: one above the other, each half the screen, not two thin strips.
      const join = async (name: string) => {
        const { client } = await connectLive(d, room, (await moderator(d, room, name)).session);
        others.push(client);
        client.send({ type: 'state', audio: false, video: false, screen: false });
        // Attached: a tile past the page is there but hidden (out of the accessibility tree).
        await page.locator(`li.tile[aria-label="${name}"]`).waitFor({ state: 'attached' });
      };
      await join('Dan Ortiz');
      t.ok(await soon(async () => (await initialsOn(tile(page, 'Dan Ortiz'))) === 'DO'), 'his initials on a phone');
      const boxes = async (names: string[]) =>
        Promise.all(names.map(async (n) => (await tile(page, n).boundingBox())!));
      const [cleo, dan] = await boxes(['Cleo Park', 'Dan Ortiz']);
      t.ok(
        cleo!.width > 330 && dan!.width > 330 && dan!.y >= cleo!.y + cleo!.height - 1,
        `upright, two: one above the other, full width (${Math.round(cleo!.width)} and ${Math.round(dan!.width)} px)`,
      );
      t.ok(cleo!.height > 250 && dan!.height > 250, `each a usable height (${Math.round(dan!.height)} px)`);
      await browser.checkAccessibility(page, 'the phone meeting, two people, a camera-off tile');
      await browser.screenshot(page, 'signals-phone-camera-off');

      await page.setViewportSize({ width: 844, height: 390 });
      await until('side by side on its side', async () => {
        const [a, b] = await boxes(['Cleo Park', 'Dan Ortiz']);
        return Math.abs(a!.y - b!.y) < 2;
      });
      const [wideCleo, wideDan] = await boxes(['Cleo Park', 'Dan Ortiz']);
      t.ok(
        wideCleo!.width > 250 && wideDan!.height > 200,
        `on its side, two: side by side (${Math.round(wideDan!.width)}×${Math.round(wideDan!.height)} px)`,
      );
      await checkTargets(t, page, 'on its side');
      await browser.checkAccessibility(page, 'the phone meeting on its side');

      // Four: four across on its side, two by two upright; five: pages of four both ways.
      await join('Eve Rossi');
      await join('Finn Weber');
      const four = ['Cleo Park', 'Dan Ortiz', 'Eve Rossi', 'Finn Weber'];
      const across = await boxes(four);
      t.ok(
        across.every((b) => Math.abs(b.y - across[0]!.y) < 2 && b.width > 140 && b.height > 200),
        `on its side, four: one row (${across.map((b) => `${Math.round(b.width)}×${Math.round(b.height)}`).join(', ')})`,
      );
      await browser.screenshot(page, 'signals-phone-landscape-four');
      await page.setViewportSize({ width: 390, height: 844 });
      await until('two by two upright', async () => {
        const b = await boxes(four);
        return Math.abs(b[0]!.y - b[1]!.y) < 2 && b[2]!.y > b[0]!.y + 10;
      });
      const square = await boxes(four);
      t.ok(
        square.every((b) => b.width > 150 && b.height > 150),
        `upright, four: two by two (${square.map((b) => `${Math.round(b.width)}×${Math.round(b.height)}`).join(', ')})`,
      );
      await join('Gus Lee');
      const pager = page.getByRole('group', { name: 'Pages of video' });
      await pager.getByText('Page 1 of 2').waitFor();
      await page.setViewportSize({ width: 844, height: 390 });
      t.ok(await pager.getByText('Page 1 of 2').isVisible(), 'five on its side: still pages of four');
      await checkTargets(t, page, 'on its side with a pager');

      // The sheet opens right above the toolbar, which stays whole.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('button', { name: 'People', exact: true }).tap();
      const sheet = (await page.getByRole('complementary', { name: 'Meeting panel' }).boundingBox())!;
      const bar = (await page.getByRole('toolbar', { name: 'Meeting controls' }).boundingBox())!;
      t.ok(sheet.y + sheet.height <= bar.y + 1, 'the People sheet ends above the toolbar');

      // The same phone in German (issue 31 point 7 × point 9): the longer words keep 48 px targets
      // 8 px apart on screen, both ways, still no Share, and pages of four; axe on it.
      const german = await context.newPage();
      await enter(german, `${await linkFor(d, 'moderator', 'Hana Ito')}&lang=de`, de);
      t.equal(await german.getByRole('button', { name: 'Bildschirm freigeben' }).count(), 0, 'German: no Share either');
      await checkTargets(t, german, 'German, upright', 'Konferenzsteuerung');
      await german.getByText('Seite 1 von 2').waitFor();
      await german.getByText(/^Verbindung: /).waitFor();
      t.pass('German phone: the connection quality in German (point 12)');
      await browser.checkAccessibility(german, 'the German phone meeting, six people, pages');
      await browser.screenshot(german, 'signals-phone-de');
      await german.setViewportSize({ width: 844, height: 390 });
      await checkTargets(t, german, 'German, on its side', 'Konferenzsteuerung');
      await german.close();
    });
  });
}
