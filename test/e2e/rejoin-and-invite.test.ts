// Issue 31 points 2, 8 and 13 in Chromium, one daemon and one browser for the file:
// - a teacher who leaves gets back in as moderator with "Rejoin" (no waiting room, same role);
// - an expired link says so when the page loads, never "Joining as Ms Keller" (English and German);
// - a pupil asks to join with one button (her note written on the arrival screen);
// - every final screen (refused, left, removed, ended) releases the camera and microphone: the
//   tracks the page got from getUserMedia are all `ended`;
// - entering the meeting puts the keyboard on the toolbar's first control;
// - the rename form opens in view on a phone, with the focus in it;
// - "Copy invite link" puts a participant's link (never a moderator's) on the clipboard, announced
//   (desktop in English; on a phone in German too);
import t from 'tap';
import type { BrowserContext, Page } from 'playwright-core';
import { call, dataDirFor, rooms, type Tap } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser, type BrowserSession } from '../helpers/browser.js';
import { claimsOf } from '../helpers/waiting.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';

const sizes = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** Every track a page gets from getUserMedia, kept where the test can read its readyState. */
async function recordTracks(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const kept: MediaStreamTrack[] = [];
    (window as unknown as { __tracks: MediaStreamTrack[] }).__tracks = kept;
    const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = async (constraints) => {
      const stream = await original(constraints);
      kept.push(...stream.getTracks());
      return stream;
    };
  });
}

/** How many of the page's camera and microphone tracks there were, and how many still run. */
function tracks(page: Page): Promise<{ all: number; live: number }> {
  return page.evaluate(() => {
    const kept = (window as unknown as { __tracks: MediaStreamTrack[] }).__tracks;
    return { all: kept.length, live: kept.filter((track) => track.readyState === 'live').length };
  });
}

async function released(t: Tap, page: Page, what: string): Promise<void> {
  const now = await tracks(page);
  t.ok(now.all >= 2, `${what}: the page had its camera and microphone (${now.all} tracks)`);
  t.equal(now.live, 0, `${what}: every camera and microphone track is stopped (readyState ended)`);
}

/** Waits until the page's live region said something matching `text` since the mark (announcements.ts). */
async function announced(page: Page, text: RegExp, since: number): Promise<void> {
  await untilSaid(page, text, { since, ms: 60_000 });
}

async function person(browser: BrowserSession, name: string, viewport: { width: number; height: number }) {
  const opened = await browser.newPage(name);
  await recordTracks(opened.context);
  await opened.page.setViewportSize(viewport);
  return opened;
}

/** A join link signed with the daemon's own key that expired yesterday: what a teacher's old link is. */
async function expiredLink(dataDir: string, room: string, name: string): Promise<string> {
  const [{ TokenService }, { loadOrCreateSigningKey }] = (await Promise.all([
    import(new URL('../../dist/engine/tokens/token-service.js', import.meta.url).href),
    import(new URL('../../dist/daemon/signing-key.js', import.meta.url).href),
  ])) as [typeof import('../../src/engine/tokens/token-service.js'), typeof import('../../src/daemon/signing-key.js')];
  const yesterday = { now: () => new Date(Date.now() - 2 * 86_400_000) };
  const tokens = new TokenService(loadOrCreateSigningKey(dataDir), yesterday);
  return tokens.signJoin({ room, role: 'moderator', source: 'integration', name }, 3600);
}

t.setTimeout(120_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('leave and Rejoin as moderator, one-button knock, devices released, invite link', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'lesson', name: 'Maths 7b', waiting_room: 'all' });
    const browser = await openBrowser(t);
    const viewport = sizes.desktop;

    // The teacher enters with her link; the keyboard starts on the toolbar's first control.
    const { page: mod, context: modContext } = await person(browser, 'Ms Keller', viewport);
    await modContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
    const link = await call(d, '/api/rooms/lesson/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Ms Keller' },
    });
    await mod.goto(`${d.url}${link.body.url}`);
    await mod.getByRole('button', { name: 'Join' }).click();
    const micButton = mod.getByRole('button', { name: 'Mute microphone' });
    await micButton.waitFor();
    await mod.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Mute microphone');
    t.pass("entering the meeting puts the focus on the toolbar's first control (Mute microphone)");

    // Copy invite link: a participant's link on the clipboard, announced.
    const mark = await saidCount(mod);
    await mod.getByRole('button', { name: 'Copy invite link' }).click();
    await announced(mod, /^Invite link copied/, mark);
    const copied = await mod.evaluate(() => navigator.clipboard.readText());
    const invite = new URL(copied);
    t.equal(invite.pathname, '/room/lesson', 'the invite names the room');
    t.match(
      claimsOf(invite.searchParams.get('t')),
      { room: 'lesson', role: 'participant' },
      'and carries no moderator rights',
    );
    await browser.checkAccessibility(mod, 'the meeting with Copy invite link');

    // The pupil: name and note on the arrival, one button, and she is asking (no second "Ask to join").
    const { page: pia } = await person(browser, 'Pia', viewport);
    await pia.goto(copied);
    await pia.getByLabel('Your name').fill('Pia');
    await pia.getByLabel('Note to the moderator (optional)').fill('Late bus');
    await browser.checkAccessibility(pia, 'the arrival with the note');
    await browser.screenshot(pia, 'rejoin-arrival-desktop');
    await pia.getByRole('button', { name: 'Join' }).click();
    await pia.getByText('Asking to join…').waitFor();
    t.equal(
      await pia.getByRole('button', { name: 'Ask to join' }).filter({ visible: true }).count(),
      0,
      'one button: no "Ask to join" after "Join"',
    );
    await pia.getByText('Late bus').waitFor();
    t.pass('her note went with the knock');

    // Refused: the camera and microphone are let go; "Ask again" takes them back.
    await mod.getByRole('button', { name: 'Refuse Pia', exact: true }).first().click();
    await pia.getByText('A moderator declined your request. You may ask again.').first().waitFor();
    await released(t, pia, 'refused');
    await pia.getByRole('button', { name: 'Ask again' }).click();
    await pia.getByText('Asking to join…').waitFor();
    await mod.getByRole('button', { name: 'Admit Pia', exact: true }).first().click();
    await pia.getByRole('button', { name: 'Mute microphone' }).waitFor();

    // The teacher leaves: devices released, and "Rejoin" brings her back as moderator, without waiting.
    await mod.getByRole('button', { name: 'Leave meeting' }).click();
    await mod.getByRole('heading', { name: 'You left the meeting.' }).waitFor();
    await released(t, mod, 'left');
    await browser.checkAccessibility(mod, 'the left screen with Rejoin');
    await browser.screenshot(mod, 'rejoin-left-desktop');
    await mod.getByRole('button', { name: 'Rejoin' }).click();
    await mod.getByRole('button', { name: 'Mute microphone' }).waitFor();
    t.equal(await mod.getByText('Asking to join…').count(), 0, 'she never saw the waiting screen');
    await mod.getByRole('button', { name: 'Copy invite link' }).waitFor();
    t.ok(
      await mod.getByRole('button', { name: 'Moderation' }).isVisible(),
      'back as moderator: the Moderation tool is hers again',
    );
    t.ok((await tracks(mod)).live >= 2, 'her camera and microphone are on again');

    // A reload inside the meeting: the address no longer has her link, the tab kept it, so she
    // comes back as moderator through the arrival's device check, never into her own waiting room.
    await mod.reload();
    await mod.getByText('Ms Keller').first().waitFor();
    await mod.getByRole('button', { name: 'Join' }).click();
    await mod.getByRole('button', { name: 'Mute microphone' }).waitFor();
    t.equal(await mod.getByText('Asking to join…').count(), 0, 'after a reload she never saw the waiting screen');
    t.ok(
      await mod.getByRole('button', { name: 'Moderation' }).isVisible(),
      'after a reload, still moderator: the Moderation tool is hers',
    );

    // Removed: Pia's devices are let go.
    await mod.getByRole('button', { name: 'Remove Pia' }).click();
    await mod.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await pia.getByRole('heading', { name: 'A moderator removed you from the meeting.' }).waitFor();
    await released(t, pia, 'removed');

    // Ended (the room is deleted): the teacher's devices are let go.
    await call(d, '/api/rooms/lesson', { method: 'DELETE' });
    await mod.getByRole('heading', { level: 1 }).filter({ hasText: /ended/ }).waitFor();
    await released(t, mod, 'ended');
  });

  t.test('an expired link says so when the page loads, in English and German', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'old', name: 'Old lesson', waiting_room: 'all' });
    const browser = await openBrowser(t);
    const token = await expiredLink(d.dataDir, 'old', 'Ms Keller');
    for (const [lang, size, sentence] of [
      ['en', 'desktop', 'This link is not valid any more. Ask for a new one.'],
      ['de', 'phone', 'Dieser Link ist nicht mehr gültig. Bitte fragen Sie nach einem neuen.'],
    ] as const) {
      const { page } = await person(browser, `${lang}-${size}`, sizes[size]);
      await page.goto(`${d.url}/room/old?t=${token}&lang=${lang}`);
      await page.getByRole('heading', { level: 1, name: sentence }).waitFor();
      t.equal(await page.getByText('Ms Keller').count(), 0, `${lang} ${size}: nothing says "Joining as Ms Keller"`);
      t.equal(
        await page.getByRole('button', { name: /^(Join|Teilnehmen)$/ }).count(),
        0,
        `${lang} ${size}: no Join to press`,
      );
      await browser.checkAccessibility(page, `expired link (${lang}, ${size})`);
      await browser.screenshot(page, `expired-link-${size}-${lang}`);
    }
  });

  t.test('on a phone the rename form opens in view with the focus in it; Rejoin in German', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'klasse', name: 'Klasse 7b', waiting_room: 'all' });
    const browser = await openBrowser(t);
    const { page, context } = await person(browser, 'Frau Keller', sizes.phone);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
    const link = await call(d, '/api/rooms/klasse/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Frau Keller' },
    });
    await page.goto(`${d.url}${link.body.url}&lang=de`);
    await page.getByRole('button', { name: 'Teilnehmen' }).click();
    await page.getByRole('toolbar').waitFor();
    await page.getByRole('button', { name: 'Personen', exact: true }).click();
    // Issue 31 point 13 on a phone, in German: the invite link copied, said in German, a participant's.
    const mark = await saidCount(page);
    await page.getByRole('button', { name: 'Einladungslink kopieren' }).click();
    await announced(page, /^Einladungslink kopiert\./, mark);
    const copied = new URL(await page.evaluate(() => navigator.clipboard.readText()));
    t.match(
      claimsOf(copied.searchParams.get('t')),
      { room: 'klasse', role: 'participant' },
      'phone, German: the copied invite is a participant link',
    );
    await browser.checkAccessibility(page, 'the people panel with Copy invite link (de, phone)');
    await browser.screenshot(page, 'invite-copied-phone-de');
    await page.getByRole('button', { name: 'Ihren Namen ändern' }).click();
    const input = page.getByRole('textbox', { name: 'Ihr Name' });
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.name === 'name');
    const save = page.getByRole('button', { name: 'Namen speichern' });
    // On screen and not under the toolbar or outside the sheet: what a tap at its middle would hit.
    const onTop = async (what: typeof save) => {
      await what.evaluate((e) => new Promise((resolve) => requestAnimationFrame(() => resolve(e))));
      return what.evaluate((e) => {
        const r = e.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return hit !== null && (hit === e || e.contains(hit));
      });
    };
    t.ok(await onTop(input), 'the name field is in view, not covered');
    t.ok(await onTop(save), "the form's Save button is in view, not covered by the toolbar");
    await browser.screenshot(page, 'rename-phone-de');
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Konferenz verlassen' }).click();
    await page.getByRole('button', { name: 'Wieder teilnehmen' }).waitFor();
    await released(t, page, 'left (de)');
    await browser.checkAccessibility(page, 'the left screen (de, phone)');
    await browser.screenshot(page, 'rejoin-left-phone-de');
    await page.getByRole('button', { name: 'Wieder teilnehmen' }).click();
    await page.getByRole('toolbar').waitFor();
    t.ok(await page.getByRole('button', { name: 'Moderation', exact: true }).count(), 'back in as moderator');
  });
}
