// Issue 17 point 4 (resilience) and point 7 (ICE servers), in headless Chromium: a page taken
// offline with the DevTools protocol's network emulation while waiting and while in the
// meeting tells the truth and recovers; the mesh's RTCPeerConnection gets the configured
// STUN/TURN servers with a TURN credential of her own. Issue 31 point 3: a waiting page offline
// longer than the old 6 s limit keeps its place, and the moderator's list shows her connection
// lost, then back; only a silence past the grace loses the place, and both sides are told.
import t from 'tap';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import {
  countConnections,
  inboundTotal,
  inLoopbackNamespace,
  openBrowser,
  type BrowserSession,
} from '../helpers/browser.js';
import { cutProxy } from '../helpers/cut-proxy.js';
import { until } from '../helpers/net.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';
import { timeline } from '../helpers/waiting.js';

t.setTimeout(300_000);

const turnSecret = 'coturn-static-auth-secret-0123456789';

const sessions = new WeakMap<Page, CDPSession>();

/** Takes the page's network away (true) or gives it back (false), as DevTools does: one session per page, since each session's emulation holds on its own. */
async function setOffline(context: BrowserContext, page: Page, offline: boolean): Promise<void> {
  let cdp = sessions.get(page);
  if (!cdp) {
    cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    sessions.set(page, cdp);
  }
  await cdp.send('Network.emulateNetworkConditions', {
    offline,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
}

async function knockAs(browser: BrowserSession, url: string, name: string, note: string) {
  const opened = await browser.newPage(name);
  await countConnections(opened.context);
  await opened.page.goto(url);
  await opened.page.getByLabel('Your name').fill(name);
  // One button (issue 31): the note on the arrival, and Join asks to join.
  await opened.page.getByLabel('Note to the moderator (optional)').fill(note);
  await opened.page.getByRole('button', { name: 'Join' }).click();
  await opened.page.locator('#app').getByText('Waiting for a moderator to let you in.').waitFor();
  return opened;
}

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test(
    'while waiting: "Reconnecting…", then her place kept, or lost with "Ask again" and what she typed',
    async (t) => {
      // A grace of 15 s instead of the default 60 s, so that the test also sees one run out in time.
      const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_WAITING_CLOSED_WINDOW_SECS: '15' });
      await rooms.create(d, { room_id: 'desk', name: 'Help desk', waiting_room: 'all', mics_off_on_entry: false });
      const browser = await openBrowser(t);
      const { page: mod } = await browser.newPage('moderator');
      const link = await call(d, '/api/rooms/desk/links', {
        method: 'POST',
        json: { role: 'moderator', name: 'Mo Desk' },
      });
      await mod.goto(`${d.url}${link.body.url}`);
      await mod.getByRole('button', { name: 'Join' }).click();
      await mod.getByRole('button', { name: 'Mute microphone' }).waitFor();
      const row = mod
        .getByRole('region', { name: 'Waiting' })
        .getByRole('listitem')
        .filter({ hasText: 'Wanda Waiting' });
      browser.expectConsoleErrors(
        /(ERR_INTERNET_DISCONNECTED|Failed to fetch)/,
        'the polls made while the page is offline fail in the browser: that is the outage the test makes',
      );
      browser.expectConsoleErrors(
        / 404 GET \S+\/room\/desk\/waiting$/,
        'after a long outage, and in the tab reopened late, the poll asks about a request the server let go: its 404 is how the page learns the place is lost',
      );
      const { page, context } = await knockAs(browser, `${d.url}/room/desk`, 'Wanda Waiting', 'Back from lunch');
      await row.waitFor();
      const listed = async () =>
        ((await call(d, '/api/rooms/desk/waiting')).body as { name: string; note: string }[]).map(
          (r) => `${r.name}/${r.note}`,
        );

      // A short drop: the place is still hers.
      const mark = await saidCount(page);
      await setOffline(context, page, true);
      await page.locator('#app').getByText('Connection lost. Reconnecting…').waitFor({ timeout: 5000 });
      t.equal(
        await untilSaid(page, 'Connection lost. Reconnecting…', { since: mark, exact: true, ms: 5000 }),
        'Connection lost. Reconnecting…',
        'announced',
      );
      await setOffline(context, page, false);
      await page.locator('#app').getByText('Waiting for a moderator to let you in.').waitFor({ timeout: 5000 });
      t.same(await listed(), ['Wanda Waiting/Back from lunch'], 'a short drop keeps her place');

      // Eight seconds away, longer than the old limit (a page silent 6 s was a closed window): the
      // moderator sees her connection lost, her place is kept, and she re-attaches by herself.
      await setOffline(context, page, true);
      const offlineAt = Date.now();
      await page.locator('#app').getByText('Connection lost. Reconnecting…').waitFor({ timeout: 5000 });
      const lostMark = row.getByText('connection lost');
      await lostMark.waitFor({ timeout: 15_000 });
      t.ok(await lostMark.isVisible(), "the moderator's list shows her connection lost");
      await browser.screenshot(mod, 'waiting-connection-lost');
      await browser.checkAccessibility(mod, 'the waiting list with a lost connection');
      await until('eight seconds offline', async () => Date.now() - offlineAt >= 8000, 15_000);
      t.same(await listed(), ['Wanda Waiting/Back from lunch'], 'after 8 s offline she is still in line');
      await setOffline(context, page, false);
      await page.locator('#app').getByText('Waiting for a moderator to let you in.').waitFor({ timeout: 12_000 });
      await lostMark.waitFor({ state: 'detached', timeout: 10_000 });
      t.pass("back online: she waits in the same place, and the moderator's mark is gone");

      // Longer than the grace (15 s here): the place is lost, she is told why, and the moderator sees her leave.
      const modMark = await saidCount(mod);
      await setOffline(context, page, true);
      await page.locator('#app').getByText('Connection lost. Reconnecting…').waitFor({ timeout: 5000 });
      await until('the server to drop her request', async () => (await listed()).length === 0, 30_000);
      const gone = 'Wanda Waiting left the waiting list: no connection for too long';
      const notice = mod.getByRole('region', { name: 'Waiting' }).getByText(gone);
      await notice.waitFor({ timeout: 5000 });
      t.ok(await notice.isVisible(), 'the moderator sees a notice that she left');
      await untilSaid(mod, gone, { since: modMark, ms: 5000 });
      t.pass('and it is announced (the polite live region)');
      await setOffline(context, page, false);
      await page
        .locator('#app')
        .getByText('You waited too long without a connection; ask to join again.')
        .waitFor({ timeout: 15_000 });
      await browser.screenshot(page, 'waiting-timed-out');
      const desktop = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 844 });
      await browser.screenshot(page, 'waiting-timed-out-phone');
      if (desktop) await page.setViewportSize(desktop);
      await browser.checkAccessibility(page, 'the waiting page after the grace ran out');
      t.equal(await page.getByLabel('Your name').inputValue(), 'Wanda Waiting', 'her name kept');
      t.equal(
        await page.getByLabel('Note to the moderator (optional)').inputValue(),
        'Back from lunch',
        'her note kept',
      );
      t.equal(await page.getByRole('button', { name: 'Ask to join' }).isVisible(), false, 'not the first form again');
      await page.getByRole('button', { name: 'Ask again' }).click();
      await page.locator('#app').getByText('Waiting for a moderator to let you in.').waitFor();
      t.same(await listed(), ['Wanda Waiting/Back from lunch'], 'one click puts her back in line with her note');

      // The tab closed (pagehide sends the leave beacon) and reopened within the browser session:
      // at once, the place is still hers; a few seconds later, it is gone, and what she typed is not.
      await page.goto('about:blank');
      await until('the beacon to take her off the list', async () => (await listed()).length === 0, 10_000);
      await page.goto(`${d.url}/room/desk`);
      await page.locator('#app').getByText('Waiting for a moderator to let you in.').waitFor();
      t.same(await listed(), ['Wanda Waiting/Back from lunch'], 'a tab reopened at once keeps her place');
      const withdrawals = async () => (await timeline(d, 'desk')).filter((e) => e.kind === 'withdraw').length;
      const withdrawnBefore = await withdrawals();
      await page.goto('about:blank');
      // The server lets a leaving page's place go after its grace (2 s) at its next sweep: waited
      // for on the meeting's timeline rather than for a fixed 5 s.
      await until('the server to withdraw her request', async () => (await withdrawals()) > withdrawnBefore, 15_000);
      await page.goto(`${d.url}/room/desk`);
      await page
        .locator('#app')
        .getByText('You lost your place. Your name and note are kept: you may ask again.')
        .waitFor();
      t.equal(await page.getByLabel('Your name').inputValue(), 'Wanda Waiting', 'name kept after the reopened tab');
      t.equal(
        await page.getByLabel('Note to the moderator (optional)').inputValue(),
        'Back from lunch',
        'note kept after the reopened tab',
      );
      await page.getByRole('button', { name: 'Ask again' }).click();
      await page.locator('#app').getByText('Waiting for a moderator to let you in.').waitFor();
      t.same(await listed(), ['Wanda Waiting/Back from lunch']);
    },
  );

  t.test(
    'in the meeting: a banner, a reconnection with back-off, media back without a reload; the ICE servers reach the mesh',
    async (t) => {
      const d = await inProcessDaemonFor(t, dataDirFor(t), {
        SERVICE_ICE_SERVERS: 'stun:127.0.0.1:3478,turn:127.0.0.1:3478?transport=udp',
        SERVICE_TURN_SECRET: turnSecret,
      });
      await rooms.create(d, { room_id: 'class', name: 'Class 4B', waiting_room: 'off' });
      const proxy = await cutProxy(t, d.url);
      const browser = await openBrowser(t);
      browser.expectConsoleErrors(
        /(ERR_INTERNET_DISCONNECTED|WebSocket connection to \S+ failed)/,
        "the guest's reconnection attempts while her network is gone fail in the browser: that is the outage the test makes",
      );

      const enter = async (name: string, base: string) => {
        const opened = await browser.newPage(name);
        await countConnections(opened.context);
        await opened.page.goto(`${base}/room/class`);
        await opened.page.getByLabel('Your name').fill(name);
        await opened.page.getByRole('button', { name: 'Join' }).click();
        await opened.page.getByRole('button', { name: 'Mute microphone' }).waitFor();
        return opened;
      };
      const teacher = await enter('Teacher', d.url);
      const pupil = await enter('Pupil', proxy.url);
      const decodesFrom = async (page: Page, what: string) => {
        const start = await inboundTotal(page, 'video', 'framesDecoded');
        await until(what, async () => (await inboundTotal(page, 'video', 'framesDecoded')) > start + 10, 30_000);
      };
      await decodesFrom(teacher.page, "the teacher to decode the pupil's video");
      await decodesFrom(pupil.page, "the pupil to decode the teacher's video");

      const configuration = await pupil.page.evaluate(() =>
        (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers.map(
          (pc) => pc.getConfiguration().iceServers ?? [],
        ),
      );
      const servers = configuration[0]!;
      t.same(servers[0]?.urls, ['stun:127.0.0.1:3478'], "the mesh's RTCPeerConnection has the STUN server");
      t.same(servers[1]?.urls, ['turn:127.0.0.1:3478?transport=udp'], 'and the TURN server');
      t.match(servers[1]?.username, /^\d{10}:\S+$/, 'with a user name <expiry>:<participant id>');
      t.match(servers[1]?.credential, /^[A-Za-z0-9+/]{27}=$/, 'and a base64 HMAC-SHA1 password');

      await pupil.page.evaluate(() => ((window as unknown as { __notReloaded: boolean }).__notReloaded = true));
      // The outage: the pupil's browser offline and her connections through the network cut.
      await setOffline(pupil.context, pupil.page, true);
      t.ok(proxy.cut() > 0, 'her connections were cut');
      const banner = pupil.page.getByRole('status').filter({ hasText: 'Connection lost. Reconnecting…' });
      // The offline event shows it at once; a page on a loaded machine gets 15 s to draw it.
      await banner.waitFor({ timeout: 15_000 });
      t.ok(await banner.isVisible(), 'the banner is on screen');
      t.equal(
        await pupil.page.getByRole('button', { name: 'Leave meeting' }).isVisible(),
        true,
        'the meeting stays on screen',
      );
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await setOffline(pupil.context, pupil.page, false);
      await pupil.page.getByRole('status').filter({ hasText: 'Reconnected.' }).waitFor({ timeout: 10_000 });
      t.equal(
        await pupil.page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded),
        true,
        'without a reload',
      );
      await decodesFrom(teacher.page, "the teacher to decode the pupil's video again");
      await decodesFrom(pupil.page, "the pupil to decode the teacher's video again");
      t.equal(await pupil.page.locator('.tile').count(), 2, 'two tiles, not one per connection');
      t.equal(await teacher.page.locator('.tile').count(), 2);
    },
  );
}
