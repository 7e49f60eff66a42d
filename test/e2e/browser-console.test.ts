// Issue 15 point 6: the browser suite reads the console of every page. This file shows the
// check works (a page that logs an error fails its test, with the error named), and that the
// room page no longer asks about a waiting request before it has made one.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { FakeClock, FakeScheduler } from '../helpers/fake-clock.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';

/** GETs of the room's poll address this page made, with their statuses. */
function pollsOf(page: Page, roomId: string): number[] {
  const seen: number[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === `/room/${roomId}/waiting` && response.request().method() === 'GET')
      seen.push(response.status());
  });
  return seen;
}

// Two browser runs and a daemon on two shared cores: more than the suite's per-file default.
t.setTimeout(300_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test("a page's console error, uncaught exception and failed request fail its test, unless declared", async (t) => {
    const fixture = fileURLToPath(new URL('./fixtures/console-faults.ts', import.meta.url));
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      execFile(
        process.execPath,
        [...process.execArgv, fixture],
        { encoding: 'utf8', timeout: 120_000, env: { ...process.env, TAP: '0' } },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: unknown }).code as number | null) : 0, out: `${stdout}${stderr}` }),
      );
    });
    const out = run.out;
    t.not(run.code, 0, 'the fixture file fails');
    const undeclared = out.slice(
      out.indexOf('# Subtest: undeclared faults'),
      out.indexOf('# Subtest: declared faults'),
    );
    t.match(
      undeclared,
      /not ok \d+ - the browser logged 3 error\(s\) or failed request\(s\) this test does not expect/,
      'the undeclared test fails at its end',
    );
    t.match(undeclared, /visitor: console error: deliberate console error/, 'naming the console error');
    t.match(undeclared, /visitor: uncaught: Error: deliberate uncaught error/, 'the uncaught exception');
    t.match(
      undeclared,
      /visitor: 404 GET http:\/\/127\.0\.0\.1:\d+\/missing/,
      'and the failed request (once: its console echo is folded into it)',
    );
    t.notMatch(undeclared, /a warning is allowed/, 'a console warning is not a fault');
    const declared = out.slice(out.indexOf('# Subtest: declared faults'));
    t.match(
      declared,
      /ok \d+ - the browser logged no error and no failed request beyond the 3 this test provokes/,
      'declared faults pass',
    );
    t.notMatch(declared, /not ok/, 'and nothing else fails there');
  });

  t.test('an arrival polls no request before knocking; a reload polls the one it made', async (t) => {
    // The leave grace of a closed socket runs on a scheduler the test moves (the rest keeps real time).
    const scheduler = new FakeScheduler(new FakeClock());
    const d = await inProcessDaemonFor(t, dataDirFor(t), {}, { scheduler });
    await rooms.create(d, { room_id: 'quiet', name: 'Quiet Room', waiting_room: 'all', waiting_room_mode: 'approval' });
    const browser = await openBrowser(t);
    const { page, errors } = await browser.newPage('guest');
    const polls = pollsOf(page, 'quiet');

    await page.goto(`${d.url}/room/quiet`);
    await page.getByLabel('Your name').fill('Quinn');
    await page.getByRole('button', { name: 'Join' }).waitFor();
    t.same(polls, [], 'nothing was polled before the knock (the page used to poll here and get 404)');

    // One button (issue 31): Join asks to join.
    await page.getByRole('button', { name: 'Join' }).click();
    await page.locator('main').getByText('Waiting for a moderator to let you in.').waitFor();
    await page.reload();
    await page.locator('main').getByText('Waiting for a moderator to let you in.').waitFor();
    t.ok(
      polls.length > 0 && polls.every((status) => status === 200),
      `a reload polls the request it made (${polls.join(', ')})`,
    );

    // Admitted, a reload goes back into the meeting; after she leaves, her admission is spent
    // and the next arrival in this tab asks nothing again.
    const [request] = (await call(d, '/api/rooms/quiet/waiting')).body as { request_id: string }[];
    t.equal(
      (await call(d, `/api/rooms/quiet/waiting/${request!.request_id}/admit`, { method: 'POST', json: {} })).status,
      200,
    );
    await page.getByRole('button', { name: 'Leave meeting' }).waitFor({ timeout: 30_000 });
    // Her first socket after the reload, and its welcome: the server counts her present.
    const held = page
      .waitForEvent('websocket')
      .then((socket) =>
        socket.waitForEvent('framereceived', { predicate: (frame) => String(frame.payload).includes('"welcome"') }),
      );
    await page.reload();
    // A reload is an arrival too (issue 31 point 11): the device check first, and she enters as its switches say.
    await page.getByRole('heading', { name: 'Ready to join?' }).waitFor({ timeout: 30_000 });
    t.equal(await page.getByRole('button', { name: 'Leave meeting' }).count(), 0, 'not straight into the meeting');
    const microphone = page.getByRole('region', { name: 'Your devices' }).getByRole('switch', { name: 'Microphone' });
    await microphone.click();
    t.equal(await microphone.getAttribute('aria-checked'), 'false', 'she turns her microphone off');
    await browser.checkAccessibility(page, 'the device check on a reload into the meeting');
    await browser.screenshot(page, 'devices-reload-desktop');
    // However long she takes, her place is kept: a socket of hers holds it while she checks.
    await held;
    scheduler.advance(60_000);
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('button', { name: 'Leave meeting' }).waitFor({ timeout: 30_000 });
    t.pass('a reload in the meeting comes back into it');
    t.ok(await page.getByRole('button', { name: 'Unmute microphone' }).isVisible(), 'with her microphone off');
    t.ok(await page.getByRole('button', { name: 'Turn camera off' }).isVisible(), 'and her camera on');
    await page.getByRole('button', { name: 'Leave meeting' }).click();
    await page.getByRole('heading', { name: 'You left the meeting.' }).waitFor();
    const before = polls.length;
    await page.getByRole('link', { name: 'Back to the start' }).click();
    await page.getByRole('button', { name: 'Join' }).waitFor();
    t.equal(polls.length, before, 'after leaving, the arrival polls nothing');
    t.same(errors, [], 'no script errors');
  });
}
