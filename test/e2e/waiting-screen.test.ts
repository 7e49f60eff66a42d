import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { connectionCounts, countConnections, inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { until } from '../helpers/net.js';

const meetingName = 'Quarterly Board Review';

/** Mean absolute difference of the top-left corner of the preview and of a raw camera frame. */
function backgroundDifference(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const grab = (video: HTMLVideoElement) => {
      const canvas = document.createElement('canvas');
      canvas.width = 640;
      canvas.height = 480;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(video, 0, 0, 640, 480);
      return ctx.getImageData(0, 0, 96, 96).data;
    };
    const raw = document.createElement('video');
    raw.muted = true;
    raw.srcObject = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480 } });
    await raw.play();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const preview = document.querySelector<HTMLVideoElement>('video.preview')!;
    const a = grab(preview);
    const b = grab(raw);
    let sum = 0;
    for (let i = 0; i < a.length; i += 4)
      sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
    return sum / (a.length / 4);
  });
}

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('a guest knocks, waits, is refused, asks again, is barred, in a real browser', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'board', name: meetingName, waiting_room: 'all', access_code: '2468' });
    const browser = await openBrowser(t);
    browser.expectConsoleErrors(
      / 403 POST \S+\/room\/board\/start$/,
      'the test types a wrong access code on purpose: the server refuses it with 403',
    );
    const { page, context, errors } = await browser.newPage('guest');
    await countConnections(context);
    const bodies: string[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(d.url) && !response.url().includes('/assets/')) bodies.push(response.url());
      void response
        .text()
        .then((text) => bodies.push(text))
        .catch(() => {});
    });

    await page.goto(`${d.url}/room/board`);
    // Name and code on the same screen; a wrong code is answered there and reaches nobody.
    await page.getByLabel('Your name').fill('Guest <img src=x onerror=alert(1)>');
    await page.getByLabel('Access code').fill('1111');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('alert').filter({ hasText: 'The access code is not correct.' }).waitFor();
    t.same((await call(d, '/api/rooms/board/waiting')).body, [], 'a wrong code never reaches a moderator');

    await page.getByLabel('Access code').fill('2468');
    // One button (issue 31): the note on the arrival, and Join asks to join.
    await page.getByLabel('Note to the moderator (optional)').fill('From class 4B <b>bold?</b>');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.locator('main').getByText('Waiting for a moderator to let you in.').waitFor();
    await browser.screenshot(page, 'waiting-screen');

    const waiting = (await call(d, '/api/rooms/board/waiting')).body;
    t.equal(waiting.length, 1);
    t.match(
      waiting[0],
      { name: 'Guest <img src=x onerror=alert(1)>', note: 'From class 4B <b>bold?</b>' },
      'name and note arrive as plain text',
    );
    t.equal(await page.locator('img').count(), 0, 'her markup was not turned into an element');

    // The two parts, each with its controls named.
    for (const label of ['Camera', 'Microphone', 'Speaker', 'Your name', 'Note to the moderator (optional)']) {
      t.equal(await page.getByLabel(label, { exact: true }).count(), 1, `control "${label}" has an accessible name`);
    }
    t.equal(await page.getByRole('meter', { name: 'Microphone level' }).count(), 1);
    t.equal(await page.getByRole('button', { name: 'Play test sound' }).count(), 1);
    t.equal(await page.getByRole('radio', { name: 'Blur' }).count(), 1);

    // A reload keeps her place (the cookie), and still nothing of the meeting is shown.
    await page.reload();
    await page.locator('main').getByText('Waiting for a moderator to let you in.').waitFor();
    t.equal((await call(d, '/api/rooms/board/waiting')).body.length, 1, 'the same single request after the reload');

    // Refused: she is told, may ask again, and a new request appears.
    t.equal(
      (
        await call(d, `/api/rooms/board/waiting/${waiting[0].request_id}/refuse`, {
          method: 'POST',
          json: { bar: false },
        })
      ).status,
      200,
    );
    await page
      .locator('main')
      .getByText('A moderator declined your request. You may ask again.')
      .waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Ask again' }).click();
    await page.locator('main').getByText('Waiting for a moderator to let you in.').waitFor();
    const again = (await call(d, '/api/rooms/board/waiting')).body;
    t.equal(again.length, 1, 'a new request');
    t.not(again[0].request_id, waiting[0].request_id);

    // Nothing before admission: no peer connection, no live socket, no meeting name anywhere.
    t.same(
      await connectionCounts(page),
      { peerConnections: 0, webSockets: 0 },
      'no RTCPeerConnection and no WebSocket while waiting',
    );
    t.notMatch(await page.locator('body').innerText(), meetingName, 'the screen does not name the meeting');
    t.notOk(
      bodies.some((body) => body.includes(meetingName)),
      'no response she received names the meeting',
    );

    // Barred: reloading does not bring the request back.
    const barred = await call(d, `/api/rooms/board/waiting/${again[0].request_id}/refuse`, {
      method: 'POST',
      json: { bar: true },
    });
    t.equal(barred.status, 200, `the bar was accepted (${barred.text}); a 409 means her page stopped polling`);
    await page
      .getByRole('heading', { name: 'You cannot join this meeting.' })
      .or(page.locator('main').getByText('You cannot join this meeting.'))
      .first()
      .waitFor({ timeout: 30_000 });
    await page.reload();
    await page.getByRole('heading', { name: 'You cannot join this meeting.' }).waitFor();
    t.same((await call(d, '/api/rooms/board/waiting')).body, [], 'no request came back');
    t.same(errors, [], 'no script errors');
  });

  t.test('blur: the preview differs from the raw camera in the background', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'studio', name: 'Studio', waiting_room: 'all' });
    const browser = await openBrowser(t);
    const { page, errors } = await browser.newPage('guest');
    await page.goto(`${d.url}/room/studio`);
    await page.getByLabel('Your name').fill('Bea');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByText('Asking to join…').waitFor();
    const before = await backgroundDifference(page);
    await page.getByRole('radio', { name: 'Blur' }).check();
    await page.waitForFunction(
      () => document.querySelector<HTMLVideoElement>('video.preview')?.srcObject instanceof MediaStream,
      undefined,
      {
        timeout: 30_000,
      },
    );
    // The effect takes a moment to load its model and draw: measured until it shows (30 s at most on a loaded machine), not after a fixed pause.
    let after = before;
    await until(
      'the blurred preview',
      async () => (after = await backgroundDifference(page)) > before + 5,
      30_000,
      200,
    ).catch(() => {});
    await browser.screenshot(page, 'waiting-screen-blur');
    t.ok(
      after > before + 5,
      `blurred preview differs from the raw frame (difference ${before.toFixed(1)} → ${after.toFixed(1)})`,
    );
    // A fixed pause here, not a wait for the condition: the blur's frames would meet it at once,
    // and the pause is what lets the image replace them before the measure.
    await page.getByRole('radio', { name: 'Image' }).check();
    await page.waitForTimeout(2000);
    const image = await backgroundDifference(page);
    t.ok(image > before + 5, `an image background replaces the camera's background (difference ${image.toFixed(1)})`);
    t.same(errors, [], 'no script errors');
  });
}
