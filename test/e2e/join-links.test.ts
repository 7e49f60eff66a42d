// Issue 17 point 5 in a real browser, on a desktop window and a phone: a moderator's link
// enters a room with an access code without being asked for it; a link that names her says
// "Joining as …" instead of an empty field; a bare link remembers the last name typed on the
// device; before admission the page is "Join a meeting" and nothing names the room, once
// inside the title and the first heading are the room's name.
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';

const roomName = 'Physics 3A';
const sizes = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

/** The page's title and its first heading, as a screen reader meets them. */
async function titleAndHeading(page: Page): Promise<{ title: string; heading: string }> {
  return {
    title: await page.title(),
    heading: (await page.getByRole('heading', { level: 1 }).first().innerText()).trim(),
  };
}

t.setTimeout(240_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  for (const [size, viewport] of Object.entries(sizes)) {
    t.test(`join links just work (${size} ${viewport.width}×${viewport.height})`, async (t) => {
      const d = await inProcessDaemonFor(t, dataDirFor(t));
      await rooms.create(d, { room_id: 'physics', name: roomName, waiting_room: 'all', access_code: '8642' });
      const browser = await openBrowser(t);

      // The moderator's link: no access code asked, her name said rather than asked.
      const { page: mod } = await browser.newPage('moderator');
      await mod.setViewportSize(viewport);
      const modLink = await call(d, '/api/rooms/physics/links', {
        method: 'POST',
        json: { role: 'moderator', name: 'Ms Okafor' },
      });
      await mod.goto(`${d.url}${modLink.body.url}`);
      await mod.getByText('Joining as Ms Okafor').waitFor();
      t.same(
        await titleAndHeading(mod),
        { title: 'Join a meeting', heading: 'Join a meeting' },
        'a neutral title and heading before she is in',
      );
      t.equal(await mod.getByLabel('Access code').count(), 0, 'a moderator link is not asked for the access code');
      t.equal(await mod.getByLabel('Your name').count(), 0, 'nor for a name: the link carries one');
      await mod.getByRole('button', { name: 'Join' }).click();
      await mod.getByRole('button', { name: 'Mute microphone' }).waitFor();
      await mod.getByRole('heading', { level: 1, name: roomName }).waitFor();
      t.equal(await mod.title(), roomName, "inside, the title is the room's name");
      t.equal(await mod.getByRole('heading', { level: 1 }).count(), 1, 'one first-level heading');

      // A participant's link that names her: "Joining as Pia" on arrival and while waiting;
      // nothing she receives or sees names the room until she is let in.
      const { page: pia } = await browser.newPage('pia');
      await pia.setViewportSize(viewport);
      const bodies: string[] = [];
      pia.on('response', (response) => {
        response.text().then(
          (text) => bodies.push(text),
          () => {},
        );
      });
      const piaLink = await call(d, '/api/rooms/physics/links', {
        method: 'POST',
        json: { role: 'participant', name: 'Pia' },
      });
      await pia.goto(`${d.url}${piaLink.body.url}`);
      await pia.getByText('Joining as Pia').waitFor();
      await pia.getByLabel('Access code').fill('8642');
      await pia.getByRole('button', { name: 'Join' }).click();
      await pia.locator('main').getByText('Waiting for a moderator to let you in.').waitFor();
      t.ok(
        await pia
          .getByRole('region', { name: 'Your request to join' })
          .getByText('Joining as Pia')
          .filter({ visible: true })
          .isVisible(),
        'the waiting screen says the name from the link too',
      );
      t.equal(await pia.getByLabel('Your name').count(), 0, 'and asks for no name');
      t.same(
        await titleAndHeading(pia),
        { title: 'Join a meeting', heading: 'Your request to join' },
        'a neutral title while waiting',
      );
      t.notMatch(await pia.locator('body').innerText(), roomName, 'the waiting screen does not name the room');
      t.notOk(
        bodies.some((body) => body.includes(roomName)),
        'no response before admission names the room',
      );
      // From the knock notification: on a phone the side panel is closed, the notification is in reach.
      await mod.getByRole('button', { name: 'Admit Pia from the notification' }).click();
      await pia.getByRole('heading', { level: 1, name: roomName }).waitFor({ timeout: 30_000 });
      t.equal(await pia.title(), roomName, "once admitted, the title is the room's name");

      // A bare link asks for a name and offers the one last typed on this device.
      const { page: gil, context: device } = await browser.newPage('gil');
      await gil.setViewportSize(viewport);
      await gil.goto(`${d.url}/room/physics`);
      t.equal(await gil.getByLabel('Your name').inputValue(), '', 'nothing to offer on a new device');
      await gil.getByLabel('Your name').fill('Gil Brandt');
      await gil.getByLabel('Access code').fill('8642');
      await gil.getByRole('button', { name: 'Join' }).click();
      await gil.getByText('Asking to join…').waitFor();
      const again = await device.newPage();
      await again.setViewportSize(viewport);
      await again.goto(`${d.url}/room/physics`);
      await again.getByLabel('Access code').waitFor();
      t.equal(
        await again.getByLabel('Your name').inputValue(),
        'Gil Brandt',
        'the same device offers the name typed last',
      );
      await again.close();
    });
  }
}
