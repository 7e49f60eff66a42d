// Issue 17 point 8 in a real browser: the page speaks German when the address asks for it
// (?lang=de) or when the browser's language is German, and English otherwise. A guest knocks
// through German controls found by role and German name, a moderator whose browser is German
// admits her from the notification, both meeting pages are German, <html lang> says so, and
// axe-core finds nothing on the arrival, waiting and meeting screens.
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';

const htmlLang = (page: Page) => page.evaluate(() => document.documentElement.lang);

t.setTimeout(240_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('German from ?lang=de and from a German browser: knock, admit, meet', async (t) => {
    // The waiting guest is what is tested, not the closed-window rule: a slow first poll on two busy cores must not sweep her.
    const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_WAITING_CLOSED_WINDOW_SECS: '60' });
    await rooms.create(d, { room_id: 'klasse', name: 'Klasse 7b', waiting_room: 'all', mics_off_on_entry: false });
    const browser = await openBrowser(t);

    // The moderator: a browser whose language is German, an address without ?lang.
    const modContext = await browser.browser.newContext({ locale: 'de-DE', permissions: ['camera', 'microphone'] });
    const mod = await modContext.newPage();
    t.same(await mod.evaluate(() => navigator.languages), ['de-DE'], 'the browser says German');
    const link = await call(d, '/api/rooms/klasse/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Frau Weber' },
    });
    await mod.goto(`${d.url}${link.body.url}`);
    t.equal(await htmlLang(mod), 'de', 'a German browser gets <html lang="de">');
    t.equal(await mod.title(), 'An einer Konferenz teilnehmen', 'and a German title');
    await mod.getByRole('heading', { level: 1, name: 'An einer Konferenz teilnehmen' }).waitFor();
    t.ok(await mod.getByText('Sie nehmen teil als Frau Weber').isVisible(), 'the name her link carries, in German');
    await mod.getByRole('button', { name: 'Teilnehmen', exact: true }).click();
    const modMic = mod.getByRole('button', { name: 'Mikrofon stummschalten' });
    await modMic.waitFor();
    t.ok(await mod.getByRole('toolbar', { name: 'Konferenzsteuerung' }).isVisible(), 'the toolbar has a German name');

    // The guest: an English browser, the address asks for German.
    const { page: guest } = await browser.newPage('guest');
    await guest.goto(`${d.url}/room/klasse?lang=de`);
    await guest.getByRole('heading', { level: 1, name: 'An einer Konferenz teilnehmen' }).waitFor();
    t.equal(await htmlLang(guest), 'de', '?lang=de wins over an English browser');
    await browser.checkAccessibility(guest, 'the arrival page in German');
    await guest.getByLabel('Ihr Name').fill('Noor');
    // One button (issue 31): the note on the arrival, and "Teilnehmen" asks to join.
    await guest.getByLabel('Nachricht an die Moderation (optional)').fill('Ich bin neu in der Klasse');
    await browser.checkAccessibility(guest, 'the arrival in German, with the note, before knocking');
    await guest.getByRole('button', { name: 'Teilnehmen', exact: true }).click();
    const request = guest.getByRole('region', { name: 'Ihre Bitte um Teilnahme' });
    await request.getByText('Sie bitten um Teilnahme …').waitFor();
    t.ok(
      await guest.getByRole('region', { name: 'Ihre Geräte' }).getByLabel('Kamera', { exact: true }).isVisible(),
      'the devices in German',
    );
    t.match(
      await request.innerText(),
      /Ihre Nachricht: Ich bin neu in der Klasse/,
      'the status card in German, with her note',
    );
    await browser.checkAccessibility(guest, 'the waiting card in German');

    // The moderator admits her from the German notification.
    const toast = mod.getByRole('status').filter({ hasText: 'Noor möchte teilnehmen' });
    await toast.waitFor();
    t.ok(
      await toast.getByRole('button', { name: 'Noor aus der Benachrichtigung ablehnen' }).isVisible(),
      'Ablehnen beside Zulassen',
    );
    await toast.getByRole('button', { name: 'Noor aus der Benachrichtigung zulassen' }).click();
    await guest.getByRole('button', { name: 'Mikrofon stummschalten' }).waitFor({ timeout: 30_000 });
    t.pass('admitted: the guest is in the meeting, in German');
    t.match(guest.url(), /\/room\/klasse\?lang=de$/, 'the rewritten address keeps the language for a reload');
    t.equal(await htmlLang(guest), 'de');

    // Inside: German controls, help dialog and panel, and the room's name as the title.
    await guest.getByRole('button', { name: 'Mikrofon stummschalten' }).click();
    await guest.getByRole('button', { name: 'Stummschaltung aufheben' }).waitFor();
    await guest.getByRole('button', { name: 'Tastenkürzel' }).click();
    const help = guest.getByRole('dialog', { name: 'Tastenkürzel' });
    await help.waitFor();
    t.ok(
      await help.getByRole('cell', { name: 'Konferenz verlassen' }).isVisible(),
      'the help dialog lists the shortcuts in German',
    );
    await help.getByRole('button', { name: 'Schließen' }).click();
    await mod.getByRole('listitem', { name: 'Noor' }).waitFor();
    // A wide window opens the panel on People; the toolbar's button says so (pressed).
    t.equal(
      await mod.getByRole('button', { name: 'Personen' }).getAttribute('aria-pressed'),
      'true',
      'the People button, in German, pressed',
    );
    await mod.getByRole('heading', { name: 'Teilnehmende' }).waitFor();
    t.ok(await mod.getByRole('complementary', { name: 'Seitenleiste' }).isVisible(), 'the side panel in German');
    t.equal(await guest.title(), 'Klasse 7b', 'inside, the title is the room name');
    await browser.checkAccessibility(mod, "the moderator's meeting page in German");
    await browser.checkAccessibility(guest, "the guest's meeting page in German");

    await guest.getByRole('button', { name: 'Konferenz verlassen' }).click();
    await guest.getByRole('heading', { name: 'Sie haben die Konferenz verlassen.' }).waitFor();
    t.equal(
      await guest.getByRole('link', { name: 'Zurück zum Anfang' }).getAttribute('href'),
      '/room/klasse?lang=de',
      'the way back keeps the language',
    );
  });

  t.test('a language the page does not ship: English', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'salle', name: 'Salle', waiting_room: 'all' });
    const browser = await openBrowser(t);
    const context = await browser.browser.newContext({ locale: 'fr-FR' });
    const page = await context.newPage();
    await page.goto(`${d.url}/room/salle`);
    await page.getByRole('heading', { level: 1, name: 'Join a meeting' }).waitFor();
    t.equal(await htmlLang(page), 'en', 'French is not shipped: English');
    await page.goto(`${d.url}/room/salle?lang=xx`);
    await page.getByRole('button', { name: 'Join', exact: true }).waitFor();
    t.equal(await htmlLang(page), 'en', 'an unknown ?lang falls back to English');
    t.equal(await page.title(), 'Join a meeting');
  });
}
