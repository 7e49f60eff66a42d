// Issue 31 points 1 and 11, the devices. A muted pupil moved to a sub-group and back stays
// muted: her toolbar, her tile (hers and the teacher's) and the bytes her page sends say so.
// Everyone gets the device check before entering (a moderator's link and an open room too),
// and the meeting's Devices dialog changes the microphone and the speaker by keyboard without
// unmuting her. One browser, one daemon. Screenshots land in test-results/devices-*.png.
import t from 'tap';
import type { Locator, Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { countConnections, inboundTotal, openBrowser } from '../helpers/browser.js';
import { until } from '../helpers/net.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';

t.setTimeout(180_000);

type Peers = { __meetPeers: RTCPeerConnection[] };

/** Bytes her page has sent of one kind, over its open peer connections (outbound RTP). */
function sentTotal(page: Page, kind: 'audio' | 'video'): Promise<number> {
  return page.evaluate(async (kind) => {
    let total = 0;
    for (const pc of (window as unknown as Peers).__meetPeers) {
      if (pc.connectionState === 'closed') continue;
      (await pc.getStats()).forEach((report: Record<string, unknown>) => {
        if (report.type === 'outbound-rtp' && report.kind === kind) total += Number(report.bytesSent ?? 0);
      });
    }
    return total;
  }, kind);
}

/** Whether any open peer connection of hers hands a track of this kind to its sender. */
function handsOver(page: Page, kind: 'audio' | 'video'): Promise<boolean> {
  return page.evaluate(
    (kind) =>
      (window as unknown as Peers).__meetPeers
        .filter((pc) => pc.connectionState !== 'closed')
        .some((pc) => pc.getSenders().some((sender) => sender.track?.kind === kind)),
    kind,
  );
}

const connected = (page: Page) =>
  page.evaluate(() => (window as unknown as Peers).__meetPeers.some((pc) => pc.connectionState === 'connected'));

/** The words beside a switch of the device check. */
const stateOf = (control: Locator) => control.locator('xpath=..').locator('.switch-state').textContent();

/** The German toolbar's name (the phone pass's page is in German). */
const de = 'Konferenzsteuerung';

async function pressed(page: Page, name: string, toolbar = 'Meeting controls'): Promise<string | null> {
  return page.getByRole('toolbar', { name: toolbar }).getByRole('button', { name }).getAttribute('aria-pressed');
}

t.test('the devices, desktop in English and a phone in German (one browser, one daemon)', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t));
  const browser = await openBrowser(t);

  await t.test(
    'a muted pupil stays muted through a sub-group and back; devices checked on arrival and changed inside',
    async (t) => {
      await rooms.create(d, { room_id: 'lesson', name: 'Physics 7B', waiting_room: 'off' });
      const { page: teacher, context: teacherContext } = await browser.newPage('teacher');
      const { page: pia, context: piaContext } = await browser.newPage('Pia');
      await countConnections(teacherContext);
      await countConnections(piaContext);
      await teacher.setViewportSize({ width: 1280, height: 800 });
      await pia.setViewportSize({ width: 1280, height: 800 });

      // A moderator's link: the device check is on the arrival, before Join.
      const link = await call(d, '/api/rooms/lesson/links', {
        method: 'POST',
        json: { role: 'moderator', name: 'Ms Keller' },
      });
      await teacher.goto(`${d.url}${String(link.body.url)}`);
      const check = teacher.getByRole('region', { name: 'Your devices' });
      await check.getByRole('combobox', { name: 'Microphone' }).waitFor();
      await until('the camera preview to play', () =>
        teacher
          .evaluate(() => document.querySelector<HTMLVideoElement>('video.preview')?.videoWidth ?? 0)
          .then((w) => w > 0),
      );
      for (const name of ['Camera', 'Speaker'])
        t.ok(await check.getByRole('combobox', { name }).isVisible(), `${name} offered before entering`);
      // Its own switches (issue 31 point 11): microphone and camera, on, the state in words beside them; by keyboard.
      for (const name of ['Microphone', 'Camera']) {
        const control = check.getByRole('switch', { name });
        t.equal(await control.getAttribute('aria-checked'), 'true', `the ${name.toLowerCase()} switch is on`);
        t.equal(await stateOf(control), 'On', 'and says so in words');
      }
      const cameraSwitch = check.getByRole('switch', { name: 'Camera' });
      await cameraSwitch.focus();
      let mark = await saidCount(teacher);
      await teacher.keyboard.press('Space');
      await untilSaid(teacher, 'Camera off', { since: mark, ms: 60_000 });
      t.same(
        [await cameraSwitch.getAttribute('aria-checked'), await stateOf(cameraSwitch)],
        ['false', 'Off'],
        'Space turns the camera off: the switch, its words and the announcement say so',
      );
      mark = await saidCount(teacher);
      await teacher.keyboard.press('Space');
      await untilSaid(teacher, 'Camera on', { since: mark, ms: 60_000 });
      t.equal(await cameraSwitch.getAttribute('aria-checked'), 'true', 'and on again');
      await browser.checkAccessibility(teacher, 'the arrival with the device check, moderator');
      await browser.screenshot(teacher, 'devices-arrival-desktop');
      await teacher.getByRole('button', { name: 'Join' }).click();
      await teacher.getByRole('button', { name: 'Mute microphone' }).waitFor();

      // An open room: she enters directly, and checked her devices on the way.
      await pia.goto(`${d.url}/room/lesson`);
      await pia.getByRole('region', { name: 'Your devices' }).getByRole('combobox', { name: 'Camera' }).waitFor();
      await pia.getByLabel('Your name').fill('Pia');
      // She turns her camera off on the device check: she enters with it off, her microphone on.
      await pia.getByRole('switch', { name: 'Camera' }).click();
      await browser.checkAccessibility(pia, 'the device check with the camera switched off');
      await pia.getByRole('button', { name: 'Join' }).click();
      await pia.getByRole('button', { name: 'Mute microphone' }).waitFor();
      t.equal(await pressed(pia, 'Turn camera on'), 'true', 'she entered with the camera off, as the switch said');
      await until(
        'audio from Pia at the teacher',
        async () => (await inboundTotal(teacher, 'audio', 'bytesReceived')) > 0,
        60_000,
      );

      t.notOk(await handsOver(pia, 'video'), 'no camera track is handed to a sender');
      await pia.getByRole('button', { name: 'Mute microphone' }).click();
      await teacher.getByRole('listitem', { name: 'Pia' }).getByText('Muted').waitFor();

      // The teacher makes a sub-group and moves her there, then brings everyone back.
      await teacher.getByRole('button', { name: 'Moderation' }).click();
      await teacher.getByRole('spinbutton', { name: 'Number of sub-groups' }).fill('1');
      await teacher.getByRole('button', { name: 'Create sub-groups' }).click();
      await teacher.getByRole('tab', { name: 'People' }).click();
      await teacher.getByRole('combobox', { name: 'Sub-group for Pia' }).selectOption('lesson-g1');
      await teacher.getByRole('button', { name: 'Move Pia', exact: true }).click();
      await until('Pia to arrive in the sub-group', async () => /\/room\/lesson-g1$/.test(pia.url()), 60_000);
      await pia.getByRole('listitem', { name: 'Pia' }).waitFor();
      t.equal(
        await pressed(pia, 'Unmute microphone'),
        'true',
        'in the sub-group her microphone button still says muted',
      );
      t.equal(await pressed(pia, 'Turn camera on'), 'true', 'and her camera button camera off');
      await teacher.getByRole('tab', { name: 'Moderation' }).click();
      await teacher.getByRole('button', { name: 'Bring everyone back' }).click();
      await until('Pia to be back in the lesson', async () => /\/room\/lesson$/.test(pia.url()), 60_000);
      await pia.getByRole('listitem', { name: 'Ms Keller' }).waitFor();

      t.equal(await pressed(pia, 'Unmute microphone'), 'true', 'back in the lesson her microphone button says muted');
      t.equal(await pressed(pia, 'Turn camera on'), 'true', 'and her camera button camera off');
      await until(
        "the teacher's tile of Pia to settle",
        async () => (await teacher.getByRole('listitem', { name: 'Pia' }).count()) === 1,
      );
      await until('the new peer connection to connect', () => connected(pia), 60_000);
      t.ok(
        await pia.getByRole('listitem', { name: 'Pia' }).getByText('Muted').isVisible(),
        'her own tile shows her muted',
      );
      // The server's view of her (which the teacher's tile draws) settles within its 250 ms coalescing.
      await until("the teacher's tile to show Pia muted", () =>
        teacher.getByRole('listitem', { name: 'Pia' }).getByText('Muted').isVisible(),
      ).catch(() => {});
      t.ok(
        await teacher.getByRole('listitem', { name: 'Pia' }).getByText('Muted').isVisible(),
        "the teacher's tile of Pia shows her muted",
      );
      t.notOk(await handsOver(pia, 'audio'), 'no microphone track is handed to a sender');
      t.notOk(await handsOver(pia, 'video'), 'no camera track is handed to a sender');
      const before = { audio: await sentTotal(pia, 'audio'), video: await sentTotal(pia, 'video') };
      // A window of time is what is measured here: bytes that do not grow over two seconds.
      await pia.waitForTimeout(2000);
      t.same(
        { audio: await sentTotal(pia, 'audio'), video: await sentTotal(pia, 'video') },
        before,
        'no audio or video bytes leave her page while she is muted',
      );

      // The Devices dialog, by keyboard: another microphone and speaker, and she stays muted.
      const devicesButton = pia.getByRole('button', { name: 'Devices' });
      await devicesButton.focus();
      await pia.keyboard.press('Enter');
      const dialog = pia.getByRole('dialog', { name: 'Your devices' });
      await dialog.waitFor();
      await browser.checkAccessibility(pia, 'the devices dialog in the meeting');
      await browser.screenshot(pia, 'devices-dialog-desktop');
      const microphone = dialog.getByRole('combobox', { name: 'Microphone' });
      const microphones = await microphone.locator('option').count();
      t.ok(microphones > 1, `the fake microphones are offered (${microphones})`);
      const firstMic = await microphone.inputValue();
      await microphone.focus();
      mark = await saidCount(pia);
      await pia.keyboard.press('ArrowDown');
      await until('the microphone to change', async () =>
        pia.evaluate(
          (first) =>
            (JSON.parse(localStorage.getItem('meet.devices') ?? '{}') as { microphone?: string }).microphone !==
              undefined &&
            (JSON.parse(localStorage.getItem('meet.devices') ?? '{}') as { microphone?: string }).microphone !== first,
          firstMic,
        ),
      );
      await untilSaid(pia, 'Microphone changed', { since: mark, ms: 60_000 });
      t.equal(await pressed(pia, 'Unmute microphone'), 'true', 'a new microphone keeps her muted');
      t.notOk(await handsOver(pia, 'audio'), 'and hands nothing to the senders');
      const speaker = dialog.getByRole('combobox', { name: 'Speaker' });
      await speaker.focus();
      await pia.keyboard.press('ArrowDown');
      const chosenSpeaker = await speaker.inputValue();
      await until("the teacher's tile to play through the chosen speaker", async () =>
        pia.evaluate(
          (sink) =>
            [...document.querySelectorAll<HTMLVideoElement>('li.tile video')].some(
              (v) => !v.muted && (v as HTMLVideoElement & { sinkId: string }).sinkId === sink,
            ),
          chosenSpeaker,
        ),
      );
      t.pass('the speaker chosen in the meeting plays the others');
      await pia.setViewportSize({ width: 390, height: 844 });
      await browser.screenshot(pia, 'devices-dialog-phone');
      await pia.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      t.equal(
        await pia.evaluate(() => document.activeElement?.getAttribute('aria-label')),
        'Devices',
        'Escape closes the dialog and the focus is back on Devices',
      );

      // Unmuting hands the new microphone to the senders, and its bytes flow again.
      await pia.getByRole('button', { name: 'Unmute microphone' }).click();
      await until('audio bytes to flow again', async () => (await sentTotal(pia, 'audio')) > before.audio, 30_000);
      t.ok(await handsOver(pia, 'audio'), 'unmuted, the microphone is sent');
      // Their pages would go on sending video through the next pass (the contexts are closed at the file's end).
      await Promise.all([teacherContext.close(), piaContext.close()]);
    },
  );
  // The same on a phone in German (issue 31 points 1 and 11 × points 7 and 9): Lea's page is a
  // touch phone whose browser prefers German; the teacher (desktop, English) moves her there and back.
  await t.test(
    'a phone in German: the device check on arrival, muted through a sub-group and back, a new microphone',
    async (t) => {
      await rooms.create(d, { room_id: 'klasse', name: 'Chemie 8A', waiting_room: 'off' });
      const { page: teacher, context: teacherContext } = await browser.newPage('teacher (German pass)');
      await countConnections(teacherContext);
      await teacher.setViewportSize({ width: 1280, height: 800 });
      const link = await call(d, '/api/rooms/klasse/links', {
        method: 'POST',
        json: { role: 'moderator', name: 'Herr Brandt' },
      });
      await teacher.goto(`${d.url}${String(link.body.url)}`);
      await teacher.getByRole('button', { name: 'Join' }).click();
      await teacher.getByRole('button', { name: 'Mute microphone' }).waitFor();

      const context = await browser.browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        locale: 'de-DE',
        permissions: ['camera', 'microphone'],
      });
      await countConnections(context);
      const lea = await context.newPage();
      await lea.goto(`${d.url}/room/klasse`);
      t.equal(await lea.evaluate(() => document.documentElement.lang), 'de', 'the page follows the browser: German');
      // The device check on arrival, in German: the three pickers, the two switches and their words.
      const check = lea.getByRole('region', { name: 'Ihre Geräte' });
      await check.getByRole('combobox', { name: 'Mikrofon' }).waitFor();
      for (const name of ['Kamera', 'Lautsprecher'])
        t.ok(await check.getByRole('combobox', { name }).isVisible(), `"${name}" offered before entering`);
      await until('the camera preview to play', () =>
        lea
          .evaluate(() => document.querySelector<HTMLVideoElement>('video.preview')?.videoWidth ?? 0)
          .then((w) => w > 0),
      );
      for (const name of ['Mikrofon', 'Kamera']) {
        const control = check.getByRole('switch', { name });
        t.equal(await control.getAttribute('aria-checked'), 'true', `the switch "${name}" is on`);
        t.equal(await stateOf(control), 'Ein', 'and says "Ein" beside it');
      }
      const cameraSwitch = check.getByRole('switch', { name: 'Kamera' });
      let mark = await saidCount(lea);
      await cameraSwitch.tap();
      await untilSaid(lea, 'Kamera aus', { since: mark, ms: 60_000 });
      t.same(
        [await cameraSwitch.getAttribute('aria-checked'), await stateOf(cameraSwitch)],
        ['false', 'Aus'],
        'a tap turns the camera off: the switch, "Aus" and the announcement say so',
      );
      await browser.checkAccessibility(lea, 'the German phone arrival with the device check');
      await browser.screenshot(lea, 'devices-arrival-phone-de');
      await lea.getByLabel('Ihr Name').fill('Lea');
      await lea.getByRole('button', { name: 'Teilnehmen' }).tap();
      await lea.getByRole('button', { name: 'Mikrofon stummschalten' }).waitFor();
      t.equal(
        await pressed(lea, 'Kamera einschalten', de),
        'true',
        'she entered with the camera off, as the switch said',
      );
      await lea.getByRole('button', { name: 'Mikrofon stummschalten' }).tap();
      await teacher.getByRole('listitem', { name: 'Lea' }).getByText('Muted').waitFor();

      // To a sub-group and back.
      await teacher.getByRole('button', { name: 'Moderation' }).click();
      await teacher.getByRole('spinbutton', { name: 'Number of sub-groups' }).fill('1');
      await teacher.getByRole('button', { name: 'Create sub-groups' }).click();
      await teacher.getByRole('tab', { name: 'People' }).click();
      await teacher.getByRole('combobox', { name: 'Sub-group for Lea' }).selectOption('klasse-g1');
      await teacher.getByRole('button', { name: 'Move Lea', exact: true }).click();
      await until('Lea to arrive in the sub-group', async () => /\/room\/klasse-g1$/.test(lea.url()), 60_000);
      await lea.getByRole('listitem', { name: 'Lea' }).waitFor();
      t.equal(
        await pressed(lea, 'Stummschaltung aufheben', de),
        'true',
        'in the sub-group: "Stummschaltung aufheben" pressed',
      );
      t.equal(await pressed(lea, 'Kamera einschalten', de), 'true', 'and "Kamera einschalten" pressed');
      await teacher.getByRole('tab', { name: 'Moderation' }).click();
      await teacher.getByRole('button', { name: 'Bring everyone back' }).click();
      await until('Lea to be back in the lesson', async () => /\/room\/klasse$/.test(lea.url()), 60_000);
      await lea.getByRole('listitem', { name: 'Herr Brandt' }).waitFor();
      t.equal(
        await pressed(lea, 'Stummschaltung aufheben', de),
        'true',
        'back in the lesson: her microphone button says muted',
      );
      t.equal(await pressed(lea, 'Kamera einschalten', de), 'true', 'and her camera button camera off');
      await until('the new peer connection to connect', () => connected(lea), 60_000);
      t.ok(
        await lea.getByRole('listitem', { name: 'Lea' }).getByText('Stummgeschaltet').isVisible(),
        'her own tile: "Stummgeschaltet"',
      );
      await until("the teacher's tile to show Lea muted", () =>
        teacher.getByRole('listitem', { name: 'Lea' }).getByText('Muted').isVisible(),
      ).catch(() => {});
      t.ok(
        await teacher.getByRole('listitem', { name: 'Lea' }).getByText('Muted').isVisible(),
        "the teacher's tile of Lea shows her muted",
      );
      t.notOk(await handsOver(lea, 'audio'), 'no microphone track is handed to a sender');
      t.notOk(await handsOver(lea, 'video'), 'no camera track is handed to a sender');
      const before = { audio: await sentTotal(lea, 'audio'), video: await sentTotal(lea, 'video') };
      await lea.waitForTimeout(2000);
      t.same(
        { audio: await sentTotal(lea, 'audio'), video: await sentTotal(lea, 'video') },
        before,
        'no bytes leave her phone while she is muted',
      );

      // A device change during the meeting: "Geräte", another microphone, and she stays muted.
      await lea.getByRole('toolbar', { name: de }).getByRole('button', { name: 'Geräte' }).tap();
      const dialog = lea.getByRole('dialog', { name: 'Ihre Geräte' });
      await dialog.waitFor();
      await browser.checkAccessibility(lea, 'the German devices dialog on a phone');
      // Its close button stays on screen while the dialog scrolls (it was below a phone's bottom edge).
      const close = await dialog.getByRole('button', { name: 'Schließen' }).boundingBox();
      t.ok(close && close.y + close.height <= 844, `"Schließen" is on the phone's screen (bottom ${close?.y ?? '?'})`);
      const microphone = dialog.getByRole('combobox', { name: 'Mikrofon' });
      const options = await microphone
        .locator('option')
        .evaluateAll((all) => all.map((o) => (o as HTMLOptionElement).value));
      const firstMic = await microphone.inputValue();
      const other = options.find((value) => value !== firstMic);
      t.ok(other, `another microphone is offered (${options.length})`);
      mark = await saidCount(lea);
      await microphone.selectOption(other!);
      await untilSaid(lea, 'Mikrofon gewechselt', { since: mark, ms: 60_000 });
      t.equal(
        await lea.evaluate(
          () => (JSON.parse(localStorage.getItem('meet.devices') ?? '{}') as { microphone?: string }).microphone,
        ),
        other,
        'the chosen microphone is remembered',
      );
      t.equal(await pressed(lea, 'Stummschaltung aufheben', de), 'true', 'a new microphone keeps her muted');
      t.notOk(await handsOver(lea, 'audio'), 'and hands nothing to the senders');
      await browser.screenshot(lea, 'devices-dialog-phone-de');
      // Unmuted, the microphone her senders carry is the one she chose.
      await lea.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await lea.getByRole('button', { name: 'Stummschaltung aufheben' }).tap();
      await until('her microphone to be handed to a sender', () => handsOver(lea, 'audio'));
      t.equal(
        await lea.evaluate(
          () =>
            (window as unknown as Peers).__meetPeers
              .filter((pc) => pc.connectionState !== 'closed')
              .flatMap((pc) => pc.getSenders())
              .find((sender) => sender.track?.kind === 'audio')
              ?.track?.getSettings().deviceId,
        ),
        other,
        'the microphone sent is the one chosen in the meeting',
      );
    },
  );
});
