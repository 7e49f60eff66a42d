// Issue 32 point 3 in Chromium, from `/` to a started meeting: a teacher (an account made as
// `meetctl user add` makes it) opens the home page, signs in, creates a room in "My rooms", copies
// its participant link, and starts it (she is in the meeting as its moderator, nothing typed); a
// pupil in another browser context follows the link, knocks, and the teacher admits her. On a
// desktop in English; then "My rooms" on a phone in German as an admin, who sees the room of an
// integration marked as such and hands it to the teacher; axe-core on each screen. One daemon and
// one browser; the rules are tested in test/unit/web/state/my-rooms.test.ts and
// test/service/http/my-rooms.test.ts.
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';
import { de } from '../../src/web/words/de.js';
import { en } from '../../src/web/words/en.js';

t.setTimeout(120_000);

const password = 'Korrekt-Pferd-Batterie';
/** Waits until the page said `text` since the mark (a saidCount taken before the action). */
const announced = (page: Page, text: string, since: number) => untilSaid(page, text, { since, ms: 60_000 });
const fill = (text: string, name: string) => text.replace('{name}', name);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('from / to a started meeting through My rooms; My rooms on a phone in German as an admin', async (t) => {
    const dataDir = dataDirFor(t);
    const d = await inProcessDaemonFor(t, dataDir);
    for (const [email, name, admin] of [
      ['teacher@school.example', 'Frau Özdemir', false],
      ['head@school.example', 'Herr Berg', true],
    ] as const) {
      const args = ['user', 'add', email, '--name', name, '--password-file', '-', '--data-dir', dataDir];
      const added = await runCli(admin ? [...args, '--admin'] : args, {}, password);
      t.equal(added.code, 0, added.stderr);
    }
    const session = await openBrowser(t);
    session.expectConsoleErrors(/401 GET .*\/api\/me$/, '/rooms opened before signing in, on purpose');
    session.expectConsoleErrors(/400 PATCH .*\/api\/rooms\//, 'a hand-over to an unknown email is tried on purpose');

    // The teacher, on a desktop in English.
    const w = en.myRooms;
    const teacher = await session.browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-GB',
      permissions: ['camera', 'microphone', 'clipboard-read', 'clipboard-write'],
    });
    const page = await teacher.newPage();
    await page.goto(`${d.url}/`);
    await page.getByRole('link', { name: en.home.signIn }).first().click();
    await page.getByLabel(en.account.email).fill('teacher@school.example');
    await page.getByLabel(en.account.password, { exact: true }).fill(password);
    await page.getByRole('button', { name: en.account.signIn, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: en.account.roomsTitle }).waitFor();
    await page.getByText(w.none).waitFor();

    // Create: a name missing is said at the field; then three rooms, one with an access code.
    await page.getByRole('button', { name: w.newRoom }).click();
    const name = page.getByRole('textbox', { name: w.name, exact: true });
    t.ok(await name.evaluate((e) => e === document.activeElement), 'the form opens with the focus on Name');
    let mark = await saidCount(page);
    await page.getByRole('button', { name: w.create }).click();
    await page.locator('.error', { hasText: w.nameMissing }).waitFor();
    t.equal(await name.getAttribute('aria-invalid'), 'true', 'the field at fault is marked');
    await announced(page, w.nameMissing, mark);
    for (const [title, code] of [
      ['Year 7 Maths', ''],
      ['Chemistry club', 'sesam-123'],
      ['Parents evening', ''],
    ] as const) {
      if (title !== 'Year 7 Maths') await page.getByRole('button', { name: w.newRoom }).click();
      await name.fill(title);
      if (code) await page.getByRole('textbox', { name: w.accessCode }).fill(code);
      mark = await saidCount(page);
      await name.press('Enter');
      await announced(page, fill(w.created, title), mark);
      await page.getByRole('heading', { level: 2, name: title }).waitFor();
    }
    const card = page.locator('.room-card', { has: page.getByRole('heading', { name: 'Year 7 Maths' }) });
    const link = await card.getByRole('textbox', { name: w.participantLink }).inputValue();
    const roomId = /\/room\/([a-z]{3}-[a-z]{4}-[a-z]{3})$/.exec(link)?.[1];
    t.ok(roomId, `the participant link names the room's readable id (${link})`);
    t.equal(new URL(link).origin, d.url, 'a whole address, to paste anywhere');
    mark = await saidCount(page);
    await card.getByRole('button', { name: fill(w.copyParticipantName, 'Year 7 Maths') }).click();
    await announced(page, fill(w.participantCopied, 'Year 7 Maths'), mark);
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), link, 'the participant link is copied');
    mark = await saidCount(page);
    await card.getByRole('button', { name: fill(w.copyModeratorName, 'Year 7 Maths') }).click();
    await announced(page, fill(w.moderatorCopied, 'Year 7 Maths'), mark);
    const moderatorLink = await page.evaluate(() => navigator.clipboard.readText());
    t.match(moderatorLink, new RegExp(`^${d.url}/room/${roomId}\\?t=`), 'the moderator link is copied, whole');
    const claims = JSON.parse(
      Buffer.from(new URL(moderatorLink).searchParams.get('t')!.split('.')[1]!, 'base64url').toString(),
    );
    t.match(claims, { role: 'moderator' }, 'for a moderator');
    t.notOk('name' in claims, 'naming nobody: a co-teacher enters under her own name');

    // Delete asks first; Keep keeps, then it goes for good.
    await page.getByRole('button', { name: fill(w.deleteName, 'Parents evening') }).click();
    const keep = page.getByRole('button', { name: w.keep });
    t.ok(await keep.evaluate((e) => e === document.activeElement), 'the focus goes to Keep');
    await session.checkAccessibility(page, 'my rooms, a deletion asked (desktop, en)');
    await keep.press('Enter');
    await page.getByRole('button', { name: fill(w.deleteName, 'Parents evening') }).click();
    mark = await saidCount(page);
    await page.getByRole('button', { name: w.deleteForGood }).click();
    await announced(page, fill(w.deleted, 'Parents evening'), mark);
    t.equal(await page.getByRole('heading', { name: 'Parents evening' }).count(), 0, 'gone from the list');
    await session.screenshot(page, 'my-rooms-desktop-en');

    // Start: she enters as the moderator, under her own name, with nothing to type.
    await card.getByRole('button', { name: fill(w.startName, 'Year 7 Maths') }).click();
    await page.getByRole('button', { name: en.arrival.join, exact: true }).click();
    await page.getByRole('button', { name: en.toolbar.leave }).waitFor({ timeout: 30_000 });
    t.equal(new URL(page.url()).pathname, `/room/${roomId}`, 'in the room she made');

    // The pupil follows the participant link and knocks; the teacher admits her.
    const pupilContext = await session.browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-GB',
      permissions: ['camera', 'microphone'],
    });
    const pupil = await pupilContext.newPage();
    await pupil.goto(link);
    await pupil.getByLabel(en.arrival.yourName).fill('Ben');
    await pupil.getByRole('button', { name: en.arrival.join, exact: true }).click();
    await pupil.getByText(en.waiting.asking).waitFor();
    await page.getByRole('button', { name: fill(en.waitingList.admitFromNotice, 'Ben') }).click();
    await pupil.getByRole('button', { name: en.toolbar.leave }).waitFor({ timeout: 30_000 });
    const people = (await call(d, `/api/rooms/${roomId}/waiting`)).body as unknown[];
    t.same(people, [], 'nobody is left waiting: Ben is in the meeting');
    await session.screenshot(page, 'my-rooms-started-desktop-en');
    await pupilContext.close();
    await teacher.close();

    // An admin on a phone in German: every room, the integration's marked; she hands it to the teacher.
    const made = await call(d, '/api/rooms', { method: 'POST', json: { room_id: 'lms-physik', name: 'Physik (LMS)' } });
    t.equal(made.status, 201);
    const v = de.myRooms;
    const phone = await session.browser.newContext({
      viewport: { width: 390, height: 844 },
      locale: 'de-DE',
      isMobile: true,
      hasTouch: true,
    });
    const admin = await phone.newPage();
    await admin.goto(`${d.url}/rooms?lang=de`);
    await admin.getByRole('heading', { name: de.account.signInHeading }).waitFor();
    await admin.getByLabel(de.account.email).fill('head@school.example');
    await admin.getByLabel(de.account.password, { exact: true }).fill(password);
    await admin.keyboard.press('Enter');
    await admin.getByRole('heading', { level: 1, name: de.account.roomsTitle }).waitFor();
    const lms = admin.locator('.room-card', { has: admin.getByRole('heading', { name: 'Physik (LMS)' }) });
    await lms.getByText(v.integration).waitFor();
    await admin
      .locator('.room-card', { hasText: 'Year 7 Maths' })
      .getByText(v.ownedBy.replace('{email}', 'teacher@school.example'))
      .waitFor();
    await session.checkAccessibility(admin, 'my rooms as an admin (phone, de)');
    await session.screenshot(admin, 'my-rooms-phone-de');
    await lms.getByRole('button', { name: fill(v.editName, 'Physik (LMS)') }).click();
    const owner = admin.getByRole('textbox', { name: v.owner });
    await owner.fill('niemand@school.example');
    await owner.press('Enter');
    await admin.locator('.error', { hasText: v.ownerUnknown }).waitFor();
    t.ok(await owner.evaluate((e) => e === document.activeElement), 'the focus goes to the field at fault');
    await session.checkAccessibility(admin, 'the room form with a refusal (phone, de)');
    await session.screenshot(admin, 'my-rooms-form-phone-de');
    await owner.fill('teacher@school.example');
    const adminMark = await saidCount(admin);
    await admin.getByRole('button', { name: v.save }).click();
    await announced(admin, fill(v.saved, 'Physik (LMS)'), adminMark);
    await lms.getByText(v.ownedBy.replace('{email}', 'teacher@school.example')).waitFor();
    const listed = await call(d, '/api/rooms/lms-physik');
    t.match(listed.body, { owner_email: 'teacher@school.example' }, 'the room is hers now');
    await phone.close();
  });
}
