// Issue 32 in Chromium: an organiser opens the one-time link meetctl printed, sets her password,
// signs in at /signin, sees who is signed in at /rooms and signs out, on a desktop in English and
// on a phone in German; errors are shown and announced, axe-core finds nothing on each screen.
// Single sign-on (point 2) with the same daemon: an OpenID provider (oidc-provider) in the test,
// "Sign in with single sign-on" to /rooms in English, a refused domain shown and announced in German.
// One daemon and one browser for the file; the rules themselves are tested in the unit and
// service tiers (test/unit/engine/accounts, test/service/http/accounts.test.ts).
import t from 'tap';
import type { Page } from 'playwright-core';
import { saidCount, untilSaid } from '../helpers/announcements.js';
import { dataDirFor } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { startProvider } from '../helpers/oidc-provider.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { de } from '../../src/web/words/de.js';
import { en } from '../../src/web/words/en.js';

t.setTimeout(120_000);

const shownError = (page: Page, text: string) => page.locator('.error', { hasText: text });

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('one-time link, set a password, sign in, signed in, sign out', async (t) => {
    const dataDir = dataDirFor(t);
    let daemonUrl = '';
    const provider = await startProvider(t, () => `${daemonUrl}/auth/oidc/callback`);
    const d = await inProcessDaemonFor(t, dataDir, {
      SERVICE_OIDC_ISSUER: provider.issuer,
      SERVICE_OIDC_CLIENT_ID: provider.clientId,
      SERVICE_OIDC_CLIENT_SECRET: provider.clientSecret,
      SERVICE_OIDC_ALLOWED_DOMAINS: 'school.example',
    });
    daemonUrl = d.url;
    const session = await openBrowser(t);
    session.expectConsoleErrors(/401 POST .*\/api\/session/, 'a wrong password is tried on purpose');
    session.expectConsoleErrors(/400 POST .*\/api\/password/, 'a common password is tried on purpose');
    session.expectConsoleErrors(/401 GET .*\/api\/me/, 'asked after signing out, on purpose');

    const cases = [
      { label: 'desktop-en', words: en, lang: '', viewport: { width: 1280, height: 800 }, locale: 'en-GB' },
      { label: 'phone-de', words: de, lang: '?lang=de', viewport: { width: 390, height: 844 }, locale: 'de-DE' },
    ] as const;
    for (const c of cases) {
      const w = c.words.account;
      const email = `${c.label}@school.example`;
      const added = await runCli(['user', 'add', email, '--name', 'Frau Özdemir', '--data-dir', dataDir]);
      t.equal(added.code, 0, added.stderr);
      const token = /#([\w-]{43})$/.exec(added.stdout.trim())![1]!;
      const context = await session.browser.newContext({
        viewport: c.viewport,
        locale: c.locale,
        ...(c.label.startsWith('phone') ? { isMobile: true, hasTouch: true } : {}),
      });
      const page = await context.newPage();

      // The link: the secret in the fragment, which leaves the address at once.
      await page.goto(`${d.url}/set-password${c.lang}#${token}`);
      await page.getByRole('heading', { name: w.setHeading }).waitFor();
      t.equal(new URL(page.url()).hash, '', `${c.label}: the secret left the address`);
      t.equal(await page.title(), w.setTitle);
      const password = page.getByLabel(w.newPassword);
      const repeat = page.getByLabel(w.repeatPassword);
      await password.fill('Korrekt-Pferd-Batterie');
      await repeat.fill('Korrekt-Pferd-Batteri');
      let mark = await saidCount(page);
      await page.getByRole('button', { name: w.save }).click();
      await shownError(page, w.notSame).waitFor();
      t.equal(await repeat.getAttribute('aria-invalid'), 'true', `${c.label}: the field at fault is marked`);
      t.ok(await repeat.evaluate((e) => e === document.activeElement), `${c.label}: and focused`);
      await t.resolves(untilSaid(page, w.notSame, { since: mark }), `${c.label}: announced`);
      await password.fill('password123456');
      await repeat.fill('password123456');
      await repeat.press('Enter');
      await shownError(page, w.tooCommon).waitFor();
      await session.checkAccessibility(page, `${c.label} set password (an error shown)`);
      await session.screenshot(page, `accounts-set-password-${c.label}`);
      await password.fill('Korrekt-Pferd-Batterie');
      await repeat.fill('Korrekt-Pferd-Batterie');
      mark = await saidCount(page);
      await page.getByRole('button', { name: w.save }).click();
      await page.getByRole('heading', { name: w.passwordSet }).waitFor();
      await untilSaid(page, w.passwordSet, { since: mark });

      // Sign in, from the keyboard: a wrong password first.
      await page.getByRole('link', { name: w.goSignIn }).click();
      await page.getByRole('heading', { name: w.signInHeading }).waitFor();
      t.equal(new URL(page.url()).pathname, '/signin');
      t.equal(await page.evaluate(() => document.documentElement.lang), c.words === de ? 'de' : 'en');
      await page.getByLabel(w.email).fill(email.toUpperCase());
      await page.getByLabel(w.password, { exact: true }).fill('Korrekt-Pferd-Batterix');
      mark = await saidCount(page);
      await page.keyboard.press('Enter');
      await shownError(page, w.signInFailed).waitFor();
      await untilSaid(page, w.signInFailed, { since: mark });
      await session.checkAccessibility(page, `${c.label} sign in (an error shown)`);
      await session.screenshot(page, `accounts-signin-${c.label}`);
      await page.getByLabel(w.password, { exact: true }).fill('Korrekt-Pferd-Batterie');
      await page.getByRole('button', { name: w.signIn, exact: true }).click();

      // Signed in: who, and Sign out.
      await page.getByRole('heading', { name: w.roomsTitle }).waitFor();
      t.equal(new URL(page.url()).pathname, '/rooms');
      await page
        .locator('.signed-in-as', { hasText: w.signedInAs.replace('{name}', 'Frau Özdemir').replace('{email}', email) })
        .waitFor();
      const cookies = await context.cookies();
      t.match(
        cookies.find((cookie) => cookie.name === 'meet_account'),
        { httpOnly: true, sameSite: 'Lax' },
      );
      t.equal(await page.evaluate(() => document.cookie), '', `${c.label}: the page's script cannot read it`);
      await session.checkAccessibility(page, `${c.label} signed in`);
      await session.screenshot(page, `accounts-rooms-${c.label}`);
      await page.getByRole('button', { name: w.signOut }).click();
      await page.locator('.status-note', { hasText: w.signedOut }).waitFor();
      t.equal(new URL(page.url()).pathname, '/signin');
      const me = await page.evaluate(async () => (await fetch('/api/me')).status);
      t.equal(me, 401, `${c.label}: the session ended on the server`);
      await page.goto(`${d.url}/rooms${c.lang}`);
      await page.getByRole('heading', { name: w.signInHeading }).waitFor();
      t.pass(`${c.label}: /rooms without a session goes to sign in`);

      // Single sign-on: offered, since the service has it; the provider signs her in (or its domain is refused).
      const sso = page.getByRole('link', { name: w.ssoSignIn });
      await sso.waitFor();
      if (c.label === 'desktop-en') {
        provider.signInAs(`sub-${c.label}`, { email: `sso-${email}`, email_verified: true, name: 'Herr Nowak' });
        await sso.focus();
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: w.roomsTitle }).waitFor();
        await page
          .locator('.signed-in-as', {
            hasText: w.signedInAs.replace('{name}', 'Herr Nowak').replace('{email}', `sso-${email}`),
          })
          .waitFor();
        t.pass(`${c.label}: signed in through the provider, an account made for him`);
        await page.getByRole('button', { name: w.signOut }).click();
        await page.locator('.status-note', { hasText: w.signedOut }).waitFor();
      } else {
        provider.signInAs(`sub-${c.label}`, { email: 'gast@elsewhere.example', email_verified: true });
        await sso.click();
        await shownError(page, w.ssoDomain).waitFor();
        // The provider's redirect back loaded a new document: its list starts empty.
        await untilSaid(page, w.ssoDomain);
        t.equal(new URL(page.url()).search, c.lang, `${c.label}: the code left the address, the language stayed`);
        await session.checkAccessibility(page, `${c.label} sign in (single sign-on refused)`);
        await session.screenshot(page, `accounts-signin-sso-refused-${c.label}`);
      }
      await context.close();
    }
  });
}
