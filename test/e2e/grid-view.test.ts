// Issue 18 point 6, the layout: a grid that pages through at most 25 tiles (4 on a phone), a
// speaker view with the last speaker large, the choice kept in this browser, and, through
// Janus, the page receives only the video of the tiles on screen. The crowd is live sockets
// from Node (no camera, no browser): 27 browsers would starve two cores, and the layout is the
// page's. Screenshots land in test-results/grid-*.png.
import { networkInterfaces } from 'node:os';
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms, type Tap } from '../helpers/api.js';
import { inProcessDaemonFor, type InProcessDaemon } from '../helpers/in-process-daemon.js';
import { countConnections, openBrowser } from '../helpers/browser.js';
import { janusMissing } from '../helpers/janus.js';
import { connectLive, type LiveClient } from '../helpers/live.js';
import { until } from '../helpers/net.js';
import { moderator } from '../helpers/waiting.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';

t.setTimeout(300_000);

const tiles = (page: Page) => page.getByRole('list', { name: 'Video of the participants' }).getByRole('listitem');
const tileNames = (page: Page) =>
  tiles(page).evaluateAll((items) => items.map((item) => item.getAttribute('aria-label')));

/** People who join over the live socket alone, named Pupil 01, Pupil 02, ... */
async function crowd(t: Tap, d: InProcessDaemon, roomId: string, count: number): Promise<LiveClient[]> {
  const clients: LiveClient[] = [];
  t.teardown(() => clients.forEach((c) => c.socket.close()));
  for (let i = 1; i <= count; i++) {
    const { client } = await connectLive(
      d,
      roomId,
      (await moderator(d, roomId, `Pupil ${String(i).padStart(2, '0')}`)).session,
    );
    clients.push(client);
  }
  return clients;
}

async function enter(page: Page, url: string, name?: string): Promise<void> {
  await page.goto(url);
  if (name) await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByRole('button', { name: 'Mute microphone' }).waitFor({ timeout: 30_000 });
}

t.test(
  '27 people: a grid of 25 and a second page by keyboard; a phone pages by four; speaker view makes the speaker large',
  async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_MEDIA: 'mesh' });
    await rooms.create(d, { room_id: 'hall', name: 'Assembly hall', waiting_room: 'off' });
    const browser = await openBrowser(t);
    const { page } = await browser.newPage('Ada');
    await page.setViewportSize({ width: 1280, height: 800 });
    const link = await call(d, '/api/rooms/hall/links', { method: 'POST', json: { role: 'moderator', name: 'Ada' } });
    await enter(page, `${d.url}${String(link.body.url)}`);
    const pupils = await crowd(t, d, 'hall', 26);
    await until('the 27 tiles', async () => (await page.locator('li.tile').count()) === 27, 60_000, 250).catch(
      async (err: Error) => {
        throw new Error(
          `${err.message}: ${await page.locator('li.tile').count()} tiles; ${await page.locator('body').innerText()}`.slice(
            0,
            2000,
          ),
        );
      },
    );

    const layout = page.getByRole('group', { name: 'Layout' });
    t.equal(
      await layout.getByRole('button', { name: 'Grid' }).getAttribute('aria-pressed'),
      'true',
      'the grid until she chooses',
    );
    const pager = page.getByRole('group', { name: 'Pages of video' });
    await pager.getByText('Page 1 of 2').waitFor();
    t.equal(await tiles(page).count(), 25, 'the first page holds 25 tiles');
    t.equal(
      await page.getByRole('listitem', { name: 'Pupil 25' }).isVisible(),
      false,
      'the 26th and 27th are on the next page',
    );
    await browser.checkAccessibility(page, 'the grid of 25 with its pager and layout buttons');
    await browser.screenshot(page, 'grid-desktop');

    const next = pager.getByRole('button', { name: 'Next page of video' });
    await next.focus();
    const mark = await saidCount(page);
    await page.keyboard.press('Enter');
    await pager.getByText('Page 2 of 2').waitFor();
    t.same(await tileNames(page), ['Pupil 25', 'Pupil 26'], 'the second page: the two left over');
    await untilSaid(page, 'Page 2 of 2', { since: mark, exact: true, ms: 5000 });
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await pager.getByText('Page 1 of 2').waitFor();
    t.pass('Previous, reached by Shift+Tab, turns back');

    // A phone: four tiles a page (the side panel, open on a wide window, closed to see them).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Close panel' }).click();
    await pager.getByText('Page 1 of 7').waitFor();
    t.equal(await tiles(page).count(), 4, 'a phone keeps its page of four');
    await browser.checkAccessibility(page, 'the phone grid');
    await browser.screenshot(page, 'grid-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Speaker view, chosen from the keyboard: the last speaker large, the others in a strip.
    const speakerButton = layout.getByRole('button', { name: 'Speaker view' });
    await speakerButton.focus();
    await page.keyboard.press('Space');
    t.equal(await speakerButton.getAttribute('aria-pressed'), 'true', 'speaker view is pressed');
    t.equal(await layout.getByRole('button', { name: 'Grid' }).getAttribute('aria-pressed'), 'false');
    t.equal(
      await page.evaluate(() => localStorage.getItem('meet.layout')),
      'speaker',
      'the choice is kept in this browser',
    );
    const speaker = pupils[11]!;
    speaker.send({ type: 'state', audio: true, video: false, screen: false });
    speaker.send({ type: 'speaking', speaking: true });
    const big = page.getByRole('listitem', { name: 'Pupil 12' });
    await until(
      'Pupil 12 to be large',
      async () => (await big.getAttribute('class'))?.includes('featured') === true,
      10_000,
      100,
    );
    const bigBox = await big.boundingBox();
    const smallBox = await page.getByRole('listitem', { name: 'Ada' }).boundingBox();
    t.ok(
      bigBox && smallBox && bigBox.width * bigBox.height > 8 * smallBox.width * smallBox.height,
      `the speaker's tile is large (${JSON.stringify(bigBox)} against ${JSON.stringify(smallBox)})`,
    );
    t.equal(await tiles(page).count(), 9, 'the speaker and a strip of eight');
    t.ok(await pager.isVisible(), 'the strip pages through the others');
    await browser.checkAccessibility(page, 'speaker view');
    await browser.screenshot(page, 'grid-speaker');

    // Another page in the same browser starts in speaker view.
    const again = await page.context().newPage();
    const link2 = await call(d, '/api/rooms/hall/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Ada again' },
    });
    await enter(again, `${d.url}${String(link2.body.url)}`);
    t.equal(
      await again.getByRole('button', { name: 'Speaker view' }).getAttribute('aria-pressed'),
      'true',
      'remembered in the next meeting page',
    );
    await again.close();
  },
);

// Janus 1.1.2 gathers no loopback candidates: media needs an interface with an address.
const hasAddress = Object.values(networkInterfaces()).some((list) =>
  list?.some((a) => a.family === 'IPv4' && !a.internal),
);
const skip = janusMissing ?? (hasAddress ? false : 'no non-loopback IPv4 interface for Janus to gather candidates on');

/** Packets of inbound video on the page's connections, with the width of what is decoded. */
function inboundVideo(page: Page): Promise<{ packets: number; width: number }> {
  return page.evaluate(async () => {
    let packets = 0;
    let width = 0;
    for (const pc of (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers) {
      if (pc.connectionState === 'closed') continue;
      (await pc.getStats()).forEach(
        (s: { type: string; kind?: string; packetsReceived?: number; frameWidth?: number }) => {
          if (s.type !== 'inbound-rtp' || s.kind !== 'video') return;
          packets += s.packetsReceived ?? 0;
          width = Math.max(width, s.frameWidth ?? 0);
        },
      );
    }
    return { packets, width };
  });
}

/** The width of the widest simulcast layer the page sends now (its outbound video, every layer). */
function widestLayer(page: Page): Promise<number> {
  return page.evaluate(async () => {
    let widest = 0;
    for (const pc of (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers) {
      if (pc.connectionState === 'closed') continue;
      (await pc.getStats()).forEach((s: { type: string; kind?: string; frameWidth?: number }) => {
        if (s.type === 'outbound-rtp' && s.kind === 'video') widest = Math.max(widest, s.frameWidth ?? 0);
      });
    }
    return widest;
  });
}

t.test(
  'through Janus the page receives only the video on screen: off the page it stops, back on it flows',
  { skip },
  async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_MEDIA: 'janus', SERVICE_RTP_PORTS: '44100-44300' });
    await rooms.create(d, { room_id: 'class', name: 'Class', waiting_room: 'off' });
    const browser = await openBrowser(t);
    const { page: ada, context } = await browser.newPage('Ada');
    await countConnections(context);
    await ada.setViewportSize({ width: 390, height: 844 });
    const link = await call(d, '/api/rooms/class/links', { method: 'POST', json: { role: 'moderator', name: 'Ada' } });
    await enter(ada, `${d.url}${String(link.body.url)}`);
    const { page: ben, context: benContext } = await browser.newPage('Ben');
    await countConnections(benContext);
    await enter(ben, `${d.url}/room/class`, 'Ben');
    await crowd(t, d, 'class', 3);
    const pager = ada.getByRole('group', { name: 'Pages of video' });
    await pager.getByText('Page 1 of 2').waitFor();
    t.ok(await ada.getByRole('listitem', { name: 'Ben' }).isVisible(), "Ben's tile is on Ada's first page");

    const flowing = async (ms: number) => {
      const before = (await inboundVideo(ada)).packets;
      await ada.waitForTimeout(ms);
      return (await inboundVideo(ada)).packets > before;
    };
    await until("Ben's video to reach Ada", () => flowing(500), 45_000, 250);
    const small = (await inboundVideo(ada)).width;
    t.pass(`Ada receives Ben's video (${small} px wide in the grid)`);

    await pager.getByRole('button', { name: 'Next page of video' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    await until("Ben's video to stop once his tile is off screen", async () => !(await flowing(1000)), 10_000, 0);
    t.notOk(await flowing(2000), 'no video packets for Ada while Ben is off her page (the crowd sends none)');

    await pager.getByRole('button', { name: 'Previous page of video' }).click();
    await until("Ben's video to flow again with his tile back on screen", () => flowing(500), 10_000, 0);
    t.pass('back on screen, his video comes back');

    // Ben's camera goes out in simulcast layers; large on Ada's speaker view she gets a higher one.
    const layers = await ben.evaluate(async () => {
      const rids = new Set<string>();
      for (const pc of (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers) {
        (await pc.getStats()).forEach((s: { type: string; kind?: string; rid?: string }) => {
          if (s.type === 'outbound-rtp' && s.kind === 'video' && s.rid) rids.add(s.rid);
        });
      }
      return [...rids];
    });
    t.ok(layers.length >= 2, `Ben's camera goes out in simulcast layers (${layers.join(', ')})`);
    await ada.setViewportSize({ width: 1280, height: 800 });
    await ada.getByRole('button', { name: 'Speaker view' }).click();
    await until(
      "Ben's tile to be large",
      async () =>
        (await ada.getByRole('listitem', { name: 'Ben' }).getAttribute('class'))?.includes('featured') === true,
      10_000,
      100,
    );
    // Large, she is sent his widest layer, read from Ben's own statistics as they are: under CI's
    // load (two browser shards beside the other leg) the grid was already sent his widest (640 px,
    // his camera's width), where alone it gets 320, so "wider than the grid's" cannot always come.
    let widest = 0;
    let got = 0;
    await until(
      "Ben's widest layer to reach Ada",
      async () => {
        widest = await widestLayer(ben);
        got = (await inboundVideo(ada)).width;
        return widest > 0 && got >= widest;
      },
      20_000,
      250,
    );
    if (widest > small) t.ok(got > small, `large, Ben's video arrives ${got} px wide, wider than the grid's ${small}`);
    else t.comment(`Ben sends no layer wider than the grid's ${small} px: the grid already had his widest`);
    t.pass(`large, Ada receives Ben's widest layer (${got} px)`);
  },
);
