// Screenshots of the main screens, made from the current build (`npm run screenshots`, which
// builds first): arrival, waiting, a meeting with three people, a moderator with three people
// waiting, one of them with her connection lost, and the classroom; on a desktop window (1280×800) and a phone (390×844), in the light and the
// dark scheme, into docs/screenshots/<screen>-<size>-<scheme>.png. docs/web-client.md shows three, the README one.
//
// It runs the real daemon (a throw-away data directory on the host's loopback) and Debian's
// Chromium with a fake camera, as the browser tests do.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'docs', 'screenshots');
const sizes = /** @type {const} */ ({ desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } });
const schemes = /** @type {const} */ (['light', 'dark']);

/** Starts `meetctl serve` on 127.0.0.1:0; resolves with its address, admin token and a stop function. */
async function startDaemon() {
  const dataDir = mkdtempSync(join(tmpdir(), 'meet-screenshots-'));
  const child = spawn(process.execPath, [join(root, 'bin', 'meetctl.js'), 'serve'], {
    // Six pages with live cameras starve two cores: a guest's first poll can come later than the
    // 6 s closed window, and the picture would show "You lost your place". This is a camera, not a
    // test of that rule (the browser tests hold it), so the window is wider here.
    env: {
      PATH: process.env.PATH ?? '',
      SERVICE_DATA_DIR: dataDir,
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      SERVICE_WAITING_CLOSED_WINDOW_SECS: '120',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  /** @type {string} */
  const url = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('the daemon did not start in 45 s')), 45_000);
    child.once('exit', (code) => reject(new Error(`the daemon exited (${code}) before listening`)));
    child.stdout.on('data', (chunk) => {
      buffer += String(chunk);
      const listening = /"url":"(http:[^"]+)","msg":"engine listening/.exec(buffer);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1] ?? '');
      }
    });
  });
  const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
  const stop = async () => {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { url, token, stop };
}

/**
 * @param {{ url: string; token: string }} daemon
 * @param {string} path
 * @param {RequestInit} [init]
 */
function api(daemon, path, init = {}) {
  return fetch(`${daemon.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
  });
}

/**
 * @param {{ url: string; token: string }} daemon
 * @param {string} path
 * @param {unknown} body
 */
async function post(daemon, path, body) {
  const response = await api(daemon, path, { method: 'POST', body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  const answer = /** @type {{ url: string }} */ (await response.json());
  return answer;
}

/**
 * Shoots one screen in every size and scheme, then puts the page back to a desktop in light.
 * @param {import('playwright-core').Page} page
 * @param {string} screen
 */
async function shoot(page, screen) {
  for (const [size, viewport] of Object.entries(sizes)) {
    await page.setViewportSize(viewport);
    for (const colorScheme of schemes) {
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      // Layout and video frames settle after a resize.
      await page.waitForTimeout(400);
      const file = join(outDir, `${screen}-${size}-${colorScheme}.png`);
      await page.screenshot({ path: file });
      console.log(`wrote ${file}`);
    }
  }
  await page.setViewportSize(sizes.desktop);
  await page.emulateMedia({ colorScheme: 'light' });
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  const daemon = await startDaemon();
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--allow-loopback-in-peer-connection',
    ],
  });
  try {
    await post(daemon, '/api/rooms', { room_id: 'biology', name: 'Biology 2C', waiting_room: 'all' });
    const roomUrl = `${daemon.url}/room/biology`;
    /** @param {string} [url] */
    const person = async (url = roomUrl) => {
      const context = await browser.newContext({ permissions: ['camera', 'microphone'], viewport: sizes.desktop });
      const page = await context.newPage();
      await page.goto(url);
      return page;
    };
    /** A guest at the waiting screen, ready to knock. @param {string} name @param {string} [note] */
    const arrive = async (name, note = '') => {
      const page = await person();
      await page.getByLabel('Your name').fill(name);
      // One button (issue 31): the note on the arrival, and Join asks to join.
      if (note) await page.getByLabel('Note to the moderator (optional)').fill(note);
      await page.getByRole('button', { name: 'Join' }).waitFor();
      return page;
    };
    /** @param {import('playwright-core').Page} page */
    const knock = async (page) => {
      await page.getByRole('button', { name: 'Join' }).click();
      await page.getByText('Asking to join…').waitFor();
    };

    // The moderator enters by her link.
    const link = await post(daemon, '/api/rooms/biology/links', { role: 'moderator', name: 'Ms Okafor' });
    const moderator = await person(`${daemon.url}${link.url}`);
    await moderator.getByRole('button', { name: 'Join' }).click();
    await moderator.getByRole('button', { name: 'Mute microphone' }).waitFor();

    // Arrival: a bare link, nothing typed yet.
    const arrival = await person();
    await arrival.getByLabel('Your name').waitFor();
    await shoot(arrival, 'arrival');

    // A meeting with three people: two pupils let in.
    // (Let in through the API: the pictures are the point here, the browser tests click.)
    const [amira, ben] = await Promise.all([arrive('Amira'), arrive('Ben')]);
    for (const page of [amira, ben]) {
      await knock(page);
      const waitingNow = /** @type {{ request_id: string }[]} */ (
        await (await api(daemon, '/api/rooms/biology/waiting')).json()
      );
      for (const r of waitingNow) await post(daemon, `/api/rooms/biology/waiting/${r.request_id}/admit`, {});
      await page.getByRole('button', { name: 'Mute microphone' }).waitFor();
    }
    const section = moderator.getByRole('region', { name: 'Waiting' });
    // The notification of the last knock goes once nobody waits; the video settles.
    await amira.waitForTimeout(3000);

    // Three people waiting; the moderator's notification counts them, the Waiting section lists them.
    const [chen, dana, eli] = await Promise.all([
      arrive('Chen', 'Sorry, my bus was late'),
      arrive('Dana'),
      arrive('Eli'),
    ]);
    await Promise.all([chen, dana, eli].map(knock));
    // Their rows and the notification (on a loaded machine the last knock may take a moment):
    // a picture of fewer than three would show something else than it says, so it stops here.
    await section.getByRole('listitem').nth(2).waitFor({ state: 'attached', timeout: 60_000 });
    await moderator.getByText('3 people want to join').waitFor();
    await shoot(chen, 'waiting');
    await shoot(moderator, 'moderator');
    await shoot(amira, 'meeting');

    // A waiting pupil's network drops (issue 31 point 3): after three missed polls the moderator's row says
    // "connection lost", her place kept through the grace; her page comes back before the classroom.
    const cdp = await dana.context().newCDPSession(dana);
    await cdp.send('Network.enable');
    /** @param {boolean} offline */
    const network = (offline) =>
      cdp.send('Network.emulateNetworkConditions', {
        offline,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
    await network(true);
    await section
      .getByRole('listitem')
      .filter({ hasText: 'Dana' })
      .getByText('connection lost')
      .waitFor({ timeout: 60_000 });
    await shoot(moderator, 'connection-lost');
    await network(false);

    // The classroom: everyone let in (pupils who came through the waiting room start muted: the
    // room's microphones off on entry), Amira raises her hand, Ben unmutes and turns his camera off
    // (his tile shows his initials); the teacher sees the hand, the muted badges, the tile.
    await post(daemon, '/api/rooms/biology/waiting/admit-all', {});
    await eli.getByRole('button', { name: 'Unmute microphone', exact: true }).waitFor();
    await amira.getByRole('button', { name: 'Raise hand' }).click();
    await ben.getByRole('button', { name: 'Unmute microphone', exact: true }).click();
    await ben.getByRole('button', { name: 'Turn camera off' }).click();
    await moderator.getByRole('button', { name: "Lower Amira's hand" }).waitFor();
    await moderator.waitForTimeout(1500);
    await shoot(moderator, 'classroom');
  } finally {
    await browser.close();
    await daemon.stop();
  }
}

await main();
