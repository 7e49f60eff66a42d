// The project's standard for browser screens: controls found by role and name, and axe-core
// (WCAG 2 A/AA and best practices) with no violation, in the light and the dark scheme, on a
// desktop window and a phone. This file walks the main screens a person meets: arrival (also
// with its error shown), waiting, refused, barred, and the meeting as moderator (with the
// Waiting section and its notification) and as participant.
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser, type BrowserSession } from '../helpers/browser.js';

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

/**
 * Checks the screen in both colour schemes, and on a phone too when `onPhone`; each pass gets
 * a screenshot named after `name`. The page is left in the light scheme at desktop size.
 */
async function checkScreen(browser: BrowserSession, page: Page, name: string, { onPhone = false } = {}): Promise<void> {
  for (const viewport of onPhone ? [desktop, phone] : [desktop]) {
    await page.setViewportSize(viewport);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const label = `${name}, ${colorScheme}, ${viewport === phone ? 'phone 390×844' : 'desktop'}`;
      await browser.checkAccessibility(page, label);
      await browser.screenshot(page, `a11y-${name}-${colorScheme}-${viewport === phone ? 'phone' : 'desktop'}`);
    }
  }
  await page.setViewportSize(desktop);
  await page.emulateMedia({ colorScheme: 'light' });
}

// Two browsers' worth of people and some forty axe runs on two shared cores.
t.setTimeout(300_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('the main screens pass axe-core in light and dark, on desktop and phone', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, {
      room_id: 'a11y',
      name: 'Biology 2C',
      waiting_room: 'all',
      access_code: '1357',
      mics_off_on_entry: false,
    });
    const browser = await openBrowser(t);
    browser.expectConsoleErrors(
      / 403 POST \S+\/room\/a11y\/start$/,
      'the test types a wrong access code on purpose, to show the error text',
    );

    // The moderator arrives first: her arrival form, then the meeting with nobody waiting.
    const { page: mod } = await browser.newPage('moderator');
    await mod.setViewportSize(desktop);
    const link = await call(d, '/api/rooms/a11y/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Teacher' },
    });
    await mod.goto(`${d.url}${link.body.url}`);
    await mod.getByText('Joining as Teacher').waitFor();
    await checkScreen(browser, mod, 'arrival', { onPhone: true });
    t.equal(await mod.getByLabel('Access code').count(), 0, 'a moderator link is not asked for the access code');
    await mod.getByRole('button', { name: 'Join' }).click();
    await mod.getByRole('button', { name: 'Mute microphone' }).waitFor();

    // A guest: arrival with the access code, a wrong code (the error text), waiting.
    const { page: guest } = await browser.newPage('guest');
    await guest.setViewportSize(desktop);
    await guest.goto(`${d.url}/room/a11y`);
    await guest.getByLabel('Your name').fill('Gil');
    await guest.getByLabel('Access code').fill('0000');
    await guest.getByRole('button', { name: 'Join' }).click();
    await guest.getByRole('alert').filter({ hasText: 'The access code is not correct.' }).waitFor();
    await checkScreen(browser, guest, 'arrival-error', { onPhone: true });
    await guest.getByLabel('Access code').fill('1357');
    // One button (issue 31): the note on the arrival, and Join asks to join.
    await guest.getByLabel('Note to the moderator (optional)').fill('Late bus');
    await guest.getByRole('button', { name: 'Join' }).click();
    await guest.locator('main').getByText('Waiting for a moderator to let you in.').waitFor();
    await checkScreen(browser, guest, 'waiting', { onPhone: true });

    // The moderator's meeting: the Waiting section with Gil's request and the notification.
    const waitingSection = mod.getByRole('region', { name: 'Waiting' });
    await waitingSection.getByRole('button', { name: 'Admit Gil' }).waitFor();
    await mod.getByRole('status').filter({ hasText: 'wants to join' }).waitFor();
    await checkScreen(browser, mod, 'meeting-moderator', { onPhone: true });

    // Refused, then barred (the reload shows the barred page).
    await waitingSection.getByRole('button', { name: 'Refuse Gil' }).click();
    await guest
      .locator('main')
      .getByText('A moderator declined your request. You may ask again.')
      .waitFor({ timeout: 30_000 });
    await checkScreen(browser, guest, 'refused');
    await guest.getByRole('button', { name: 'Ask again' }).click();
    await waitingSection.getByRole('button', { name: 'Refuse and bar Gil' }).click();
    await guest.locator('main').getByText('You cannot join this meeting.').first().waitFor({ timeout: 30_000 });
    await checkScreen(browser, guest, 'barred-while-waiting');
    await guest.reload();
    await guest.getByRole('heading', { name: 'You cannot join this meeting.' }).waitFor();
    await checkScreen(browser, guest, 'barred');

    // A participant, let in from the Waiting section, with a chat line from the moderator.
    const { page: pupil } = await browser.newPage('participant');
    await pupil.setViewportSize(desktop);
    await pupil.goto(`${d.url}/room/a11y`);
    await pupil.getByLabel('Your name').fill('Pia');
    await pupil.getByLabel('Access code').fill('1357');
    await pupil.getByRole('button', { name: 'Join' }).click();
    await waitingSection.getByRole('button', { name: 'Admit Pia' }).click();
    await pupil.getByRole('button', { name: 'Mute microphone' }).waitFor({ timeout: 30_000 });
    for (const page of [mod, pupil]) await page.getByRole('button', { name: 'Chat' }).click();
    await mod.getByRole('textbox', { name: 'Chat message' }).fill('Welcome, Pia');
    await mod.getByRole('button', { name: 'Send' }).click();
    await pupil.getByText('Welcome, Pia').waitFor();
    await pupil.getByRole('listitem', { name: 'Teacher' }).waitFor();
    await checkScreen(browser, pupil, 'meeting-participant', { onPhone: true });
    await checkScreen(browser, mod, 'meeting-moderator-with-participant', { onPhone: true });

    // Leaving: the page that says so.
    await pupil.getByRole('button', { name: 'Leave meeting' }).click();
    await pupil.getByRole('heading', { name: 'You left the meeting.' }).waitFor();
    await checkScreen(browser, pupil, 'left');
  });
}
