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
import { until } from '../helpers/net.js';
import { de } from '../../src/web/words/de.js';
import { en } from '../../src/web/words/en.js';

const htmlLang = (page: Page) => page.evaluate(() => document.documentElement.lang);

type Tree = { readonly [key: string]: string | Tree };
const texts = (tree: Tree): string[] =>
  Object.values(tree).flatMap((value) => (typeof value === 'string' ? [value] : texts(value)));
const germanTexts = new Set(texts(de));
/** Every English text that German does not also use, as a whole-text pattern (a placeholder stands for anything). */
const english = texts(en)
  .filter((text) => !germanTexts.has(text))
  .map((text) => {
    const parts = text.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'));
    return { text, pattern: new RegExp(`^${parts.join('.+')}$`, 's') };
  });

/**
 * Issue 31 point 9: what a German screen shows that is not German. Every text node and every
 * accessible name, tooltip or placeholder on the page (hidden ones too: they show up later), and
 * the title, are compared whole with the English catalogue; an unfilled `{placeholder}` is a
 * missing value. Returns the offending texts.
 */
async function untranslated(page: Page): Promise<string[]> {
  const shown = await page.evaluate(() => {
    const out = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) out.push(node.textContent ?? '');
    for (const e of document.querySelectorAll('*'))
      for (const name of ['aria-label', 'title', 'placeholder', 'alt', 'aria-roledescription', 'aria-valuetext'])
        out.push(e.getAttribute(name) ?? '');
    return out.map((text) => text.replace(/\s+/g, ' ').trim()).filter(Boolean);
  });
  const bad = shown.filter((text) => /\{\w+\}/.test(text) || english.some((e) => e.pattern.test(text)));
  return [...new Set(bad)];
}

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
    t.ok(
      await mod.getByText('Sie nehmen als Frau Weber teil').isVisible(),
      'the name her link carries, in German word order',
    );
    t.same(await untranslated(mod), [], "the moderator's arrival: nothing in English");
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
    t.same(await untranslated(guest), [], "the guest's arrival: nothing in English");
    await guest.getByLabel('Ihr Name').fill('Noor');
    // One button (issue 31): the note on the arrival, and "Teilnehmen" asks to join.
    await guest.getByLabel('Nachricht an die Moderation (optional)').fill('Ich bin neu in der Klasse');
    await browser.checkAccessibility(guest, 'the arrival in German, with the note, before knocking');
    await guest.getByRole('button', { name: 'Teilnehmen', exact: true }).click();
    const request = guest.getByRole('region', { name: 'Ihre Bitte um Teilnahme' });
    await request.getByText('Sie bitten um Teilnahme\u00a0…').waitFor();
    t.ok(
      await guest.getByRole('region', { name: 'Ihre Geräte' }).getByLabel('Kamera', { exact: true }).isVisible(),
      'the devices in German',
    );
    t.notOk((await request.innerText()).includes(' …'), 'no breaking space before …: it cannot wrap alone');
    t.same(await untranslated(guest), [], 'the waiting card: nothing in English');
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
    // A reload is an arrival too (issue 31 point 11): the device check, in German, then back in.
    await guest.reload();
    await guest.getByRole('heading', { name: 'Bereit zur Teilnahme?' }).waitFor({ timeout: 30_000 });
    t.ok(await guest.getByRole('switch', { name: 'Mikrofon' }).isVisible(), 'its switches in German');
    t.same(await untranslated(guest), [], 'the device check of a reload is all German');
    await guest.getByRole('button', { name: 'Teilnehmen' }).click();
    await guest.getByRole('button', { name: 'Mikrofon stummschalten' }).waitFor({ timeout: 30_000 });

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
    const people = mod.getByRole('tabpanel', { name: 'Personen' });
    t.same(
      await people.getByRole('listitem').filter({ hasText: 'Frau Weber' }).locator('.badge').allInnerTexts(),
      ['Moderator/in'],
      "the moderator's badge is the role, not the activity",
    );
    t.same(await untranslated(mod), [], "the moderator's meeting: nothing in English");
    t.same(await untranslated(guest), [], "the guest's meeting: nothing in English");
    await guest.getByRole('button', { name: 'Chat' }).click();
    await guest.getByRole('log', { name: 'Chatnachrichten' }).waitFor();
    t.same(await untranslated(guest), [], 'the chat: nothing in English');

    // Issue 31 point 14, in German: named groups (one left unnamed), a timer, everyone assigned
    // at random, a message to all groups, the teacher's visit and her way back.
    await mod.getByRole('button', { name: 'Moderation' }).click();
    await mod.getByRole('spinbutton', { name: 'Anzahl der Untergruppen' }).fill('3');
    await mod.getByRole('textbox', { name: 'Gruppennamen (optional, einer pro Zeile)' }).fill('Füchse\n<b>Eulen</b>');
    await mod.getByRole('button', { name: 'Untergruppen erstellen' }).click();
    const groups = mod.getByRole('list', { name: 'Die Untergruppen' });
    await groups.getByText('Gruppe 3', { exact: true }).waitFor();
    t.same(
      await groups.getByRole('listitem').locator('span').allInnerTexts(),
      ['Füchse', '<b>Eulen</b>', 'Gruppe 3'],
      'the names she chose, as text; the unnamed one numbered in German; never an id',
    );
    await mod.getByRole('spinbutton', { name: 'Alle zurückholen nach (Minuten)' }).fill('30');
    await mod.getByRole('button', { name: 'Timer starten' }).click();
    await mod
      .getByText(/^Alle kommen um \d\d:\d\d Uhr zurück$/)
      .first()
      .waitFor();
    await browser.checkAccessibility(mod, 'the sub-groups tools in German');
    await browser.screenshot(mod, 'i31-group-tools-desktop-de');
    t.same(await untranslated(mod), [], 'the moderation tab: nothing in English');
    await mod.getByRole('radio', { name: 'Zufällig' }).check();
    await mod.getByRole('button', { name: 'Alle verteilen' }).click();
    await until('Noor to arrive in her group', async () => /\/room\/klasse-g1\?lang=de$/.test(guest.url()), 60_000);
    await guest.getByText('Sie sind in der Gruppe Füchse').waitFor();
    t.equal(await guest.title(), 'Füchse', 'the page is titled with the group name');
    await guest.getByText(/^Alle kommen um \d\d:\d\d Uhr zurück$/).waitFor();
    await mod.getByRole('textbox', { name: 'Nachricht an alle Gruppen' }).fill('Noch <i>fünf</i> Minuten');
    await mod.getByRole('button', { name: 'An alle Gruppen senden' }).click();
    await guest.getByText('Nachricht von Frau Weber: Noch <i>fünf</i> Minuten').waitFor();
    t.pass('the message to all groups reaches the group, as text');
    await browser.checkAccessibility(guest, 'a group page with the timer and a message, in German');
    t.same(await untranslated(guest), [], 'the group page: nothing in English');
    await browser.screenshot(guest, 'i31-group-desktop-de');
    await guest.setViewportSize({ width: 390, height: 844 });
    await browser.screenshot(guest, 'i31-group-phone-de');
    await guest.setViewportSize({ width: 1280, height: 800 });
    await guest.getByRole('button', { name: 'Nachricht ausblenden' }).click();
    t.equal(
      await guest.getByText('Nachricht von Frau Weber: Noch <i>fünf</i> Minuten', { exact: true }).count(),
      0,
      'hidden when she says so',
    );

    // The teacher visits the group and comes back.
    await mod.getByRole('button', { name: 'Füchse besuchen' }).click();
    await until('the teacher to visit the group', async () => /\/room\/klasse-g1$/.test(mod.url()), 60_000);
    await mod.getByText('Sie sind in der Gruppe Füchse').waitFor();
    await guest.getByRole('listitem', { name: 'Frau Weber' }).first().waitFor();
    t.pass('Noor sees her teacher in the group');
    await browser.screenshot(mod, 'i31-visit-desktop-de');
    t.same(await untranslated(mod), [], "the teacher's visit: nothing in English");
    await mod.getByRole('button', { name: 'Zurück in den Hauptraum' }).click();
    await until('the teacher to be back', async () => /\/room\/klasse$/.test(mod.url()), 60_000);
    await mod.getByRole('button', { name: 'Moderation' }).click();
    await mod.getByRole('button', { name: 'Alle zurückholen' }).click();
    await until('Noor to be back', async () => /\/room\/klasse\?lang=de$/.test(guest.url()), 60_000);
    await guest.getByRole('button', { name: 'Konferenz verlassen' }).waitFor();

    await guest.getByRole('button', { name: 'Konferenz verlassen' }).click();
    await guest.getByRole('heading', { name: 'Sie haben die Konferenz verlassen.' }).waitFor();
    t.same(await untranslated(guest), [], 'the left screen: nothing in English');
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
