import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { until } from '../helpers/net.js';
import {
  connectionCounts,
  countConnections,
  inboundTotal,
  inLoopbackNamespace,
  openBrowser,
  type BrowserSession,
} from '../helpers/browser.js';

/** Playwright's 30 s for a click or a wait: a loaded machine took 16 s for one click here. */
const actionTimeoutMs = 60_000;

async function guest(browser: BrowserSession, url: string, name: string, note = ''): Promise<Page> {
  const { page, context } = await browser.newPage(name);
  page.setDefaultTimeout(actionTimeoutMs);
  await countConnections(context);
  await page.goto(url);
  await page.getByLabel('Your name').fill(name);
  // One button (issue 31): the note is written on the arrival, and Join asks to join.
  if (note) await page.getByLabel('Note to the moderator (optional)').fill(note);
  await page.getByRole('button', { name: 'Join' }).waitFor();
  return page;
}

// The whole class in one browser run (three people, media, sub-groups, locks) takes about two
// minutes on two shared cores, more on a loaded one: well beyond the suite's per-file default.
t.setTimeout(420_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('a moderator lets guests in; media, chat and locks between admitted people', async (t) => {
    // Five camera pages on two cores: a waiting page's poll can come late, so the closed window
    // is widened as in the knock-actions test (the window's own rule has its own tests).
    const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_WAITING_CLOSED_WINDOW_SECS: '60' });
    await rooms.create(d, { room_id: 'lesson', name: 'Chemistry 4B', waiting_room: 'all', mics_off_on_entry: false });
    const browser = await openBrowser(t);
    const { page: mod, context: modContext } = await browser.newPage('moderator');
    mod.setDefaultTimeout(actionTimeoutMs);
    await countConnections(modContext);
    // connect-src is 'self' (audit issue 11, point 10): the live socket must still pass it.
    const violations: string[] = [];
    mod.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const link = await call(d, '/api/rooms/lesson/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Teacher' },
    });
    await mod.goto(`${d.url}${link.body.url}`);
    // The link names her: the page says so instead of asking.
    await mod.getByText('Joining as Teacher').waitFor();
    await mod.getByRole('button', { name: 'Join' }).click();
    await mod.getByRole('button', { name: 'Mute microphone' }).waitFor();

    // A refused name is explained in plain words, in an alert, on the arrival screen.
    const roomUrl = `${d.url}/room/lesson`;
    browser.expectConsoleErrors(
      /^eve: 400 POST \S+\/room\/lesson\/start$/,
      'eve types names the service refuses on purpose (400 invalid_field)',
    );
    const { page: eve } = await browser.newPage('eve');
    await eve.goto(roomUrl);
    for (const [typed, advice] of [
      ['Eve\u202Egnp.exe', /invisible characters/],
      ['Eve (Moderator)', /leave out the role in brackets/],
      ['ＳＹＳＴＥＭ', /"System" is kept for messages from the service/],
    ] as const) {
      await eve.getByLabel('Your name').fill(typed);
      await eve.getByRole('button', { name: 'Join' }).click();
      await until(`the alert for ${JSON.stringify(typed)}`, async () =>
        advice.test(await eve.getByRole('alert').innerText()),
      );
      t.equal(
        await eve.getByLabel('Your name').getAttribute('aria-invalid'),
        'true',
        `${JSON.stringify(typed)}: the name field is marked invalid`,
      );
    }
    t.pass('refused names are explained in an alert');
    await eve.close();

    // Three guests knock within two seconds: one notification counts them.
    const [ann, ben, cy] = [
      await guest(browser, roomUrl, 'Ann', 'Back from the dentist'),
      await guest(browser, roomUrl, 'Ben'),
      await guest(browser, roomUrl, 'Cy'),
    ];
    await Promise.all([ann, ben, cy].map((p) => p.getByRole('button', { name: 'Join' }).click()));
    const waitingSection = mod.getByRole('region', { name: 'Waiting' });
    for (const name of ['Ann', 'Ben', 'Cy'])
      await waitingSection.getByRole('button', { name: `Admit ${name}` }).waitFor();
    t.match(await waitingSection.innerText(), /Ann[\s\S]*Back from the dentist/, "the panel shows Ann's name and note");
    const notification = mod.getByRole('status').filter({ hasText: 'want to join' });
    await notification.getByText('3 people want to join').waitFor();
    t.equal(await mod.getByText(/wants? to join/).count(), 1, 'one grouped notification');
    await browser.screenshot(mod, 'meeting-moderator-notification');

    // A screen share hides the notification; the panel still lists arrivals.
    await mod.getByRole('button', { name: 'Dismiss notification' }).click();
    await mod.getByRole('button', { name: 'Share screen' }).click();
    const sharing = await mod
      .getByRole('button', { name: 'Stop sharing screen' })
      .waitFor({ timeout: 5000 })
      .then(
        () => true,
        () => false,
      );
    if (sharing) {
      await until(
        "the share to reach the moderator's own view",
        async () => (await mod.locator('figcaption .badge', { hasText: 'Sharing screen' }).count()) > 0,
      );
      const dee = await guest(browser, roomUrl, 'Dee');
      await dee.getByRole('button', { name: 'Join' }).click();
      await waitingSection.getByRole('button', { name: 'Admit Dee' }).waitFor();
      await mod.waitForTimeout(500);
      await browser.screenshot(mod, 'meeting-moderator-sharing');
      t.notOk(await mod.getByText(/wants? to join/).isVisible(), 'no notification while a screen is shared');
      await mod.getByRole('button', { name: 'Stop sharing screen' }).click();
      // Dee's part ends here. Every page admitted later sends and decodes video in the mesh:
      // fewer pages keep two shared cores able to draw the frames and take the clicks below.
      await dee.close();
    } else {
      t.comment('this Chromium offered no screen to share; the share case is covered by the setSharing rule only');
    }

    // Before admission: no peer connection, no live socket, nothing of the meeting on screen.
    t.same(
      await connectionCounts(ben),
      { peerConnections: 0, webSockets: 0 },
      'a waiting guest has no RTCPeerConnection and no socket',
    );
    const benText = await ben.locator('body').innerText();
    t.notMatch(benText, 'Chemistry 4B');
    t.notMatch(benText, 'Teacher');

    // Admit Ann: her page enters without a reload and decodes the moderator's video.
    await ann.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await waitingSection.getByRole('button', { name: 'Admit Ann' }).click();
    await ann.getByRole('button', { name: 'Mute microphone' }).waitFor({ timeout: 30_000 });
    t.equal(await ann.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'no reload happened');
    await until('decoded video at Ann', async () => (await inboundTotal(ann, 'video', 'framesDecoded')) > 0);
    const first = await inboundTotal(ann, 'video', 'framesDecoded');
    await until('framesDecoded to rise', async () => (await inboundTotal(ann, 'video', 'framesDecoded')) > first).catch(
      () => {},
    );
    t.ok((await inboundTotal(ann, 'video', 'framesDecoded')) > first, 'framesDecoded keeps rising');
    const teacherTile = ann.getByRole('listitem', { name: 'Teacher' }).locator('video');
    await until(
      'the teacher tile to play',
      async () => (await teacherTile.evaluate((v: HTMLVideoElement) => v.videoWidth)) > 0,
    );
    t.pass('the moderator tile shows real frames (videoWidth > 0)');
    await browser.screenshot(ann, 'meeting-ann');

    // Roles are badges the page draws from the role field, beside the name, never in its text.
    const people = ann.getByRole('list', { name: 'Participants', exact: true });
    const teacherRow = people.getByRole('listitem').filter({ hasText: 'Teacher' });
    await teacherRow.locator('.badge').waitFor();
    t.same(
      await teacherRow.locator('.badge').allInnerTexts(),
      ['Moderator'],
      "the moderator's row has one badge: Moderator",
    );
    t.equal(await teacherRow.locator('.name').innerText(), 'Teacher', 'the name element holds the name alone');
    t.notMatch(await people.innerText(), /\(moderator\)/i, 'no "(moderator)" text anywhere in the list');
    t.equal(
      await people.getByRole('listitem').filter({ hasText: 'Ann' }).locator('.badge').count(),
      0,
      'a participant has no badge',
    );
    t.equal(
      await ann
        .getByRole('listitem', { name: 'Teacher' })
        .locator('figcaption .badge', { hasText: 'Moderator' })
        .count(),
      1,
      "the moderator's tile has the badge too",
    );
    await browser.screenshot(ann, 'meeting-participants-badge');

    // The panel's other gestures: refuse (she may ask again), refuse and bar (a reload keeps the bar).
    await waitingSection.getByRole('button', { name: 'Refuse Ben' }).click();
    await ben
      .locator('main')
      .getByText('A moderator declined your request. You may ask again.')
      .waitFor({ timeout: 30_000 });
    await ben.getByRole('button', { name: 'Ask again' }).click();
    await waitingSection.getByRole('button', { name: 'Admit Ben' }).waitFor();
    t.pass('after "Ask again" a new request reaches the panel');
    await waitingSection.getByRole('button', { name: 'Refuse and bar Cy' }).click();
    await cy.locator('main').getByText('You cannot join this meeting.').first().waitFor({ timeout: 30_000 });
    await cy.reload();
    await cy.getByRole('heading', { name: 'You cannot join this meeting.' }).waitFor();
    t.notOk(await waitingSection.getByText('Cy').isVisible(), 'the barred request does not come back after her reload');
    await cy.close();
    // Disable the waiting room: everyone still waiting enters.
    const waitingSwitch = waitingSection.getByRole('switch', { name: 'Waiting room for later arrivals' });
    t.equal(await waitingSwitch.getAttribute('aria-checked'), 'true', 'the switch says the waiting room is on');
    await waitingSwitch.click();
    await waitingSection.locator('[role="switch"][aria-checked="false"]').waitFor();
    t.pass('the toggle says off once the server switched it');
    await ben
      .getByRole('toolbar', { name: 'Meeting controls' })
      .waitFor({ timeout: 30_000 })
      .catch(async (err: Error) => {
        // Where Ben was when the switch went off: a request whose page stopped polling (a starved tab) is closed, not admitted.
        throw new Error(
          `${err.message.split('\n')[0]}; Ben's page shows "${(await ben.locator('main').innerText()).slice(0, 200)}"`,
        );
      });
    t.pass('disabling the waiting room let Ben in');

    // Chat both ways, as text: the side panel's Chat tab, opened from the toolbar.
    for (const page of [ann, mod])
      await page.getByRole('toolbar', { name: 'Meeting controls' }).getByRole('button', { name: 'Chat' }).click();
    await ann.getByRole('textbox', { name: 'Chat message' }).fill('Hello <b>Sir</b>');
    await ann.getByRole('button', { name: 'Send' }).click();
    await mod.getByRole('log', { name: 'Chat messages' }).getByText('Hello <b>Sir</b>').waitFor();
    await mod.getByRole('textbox', { name: 'Chat message' }).fill('Welcome, Ann');
    await mod.getByRole('button', { name: 'Send' }).click();
    await ann.getByRole('log', { name: 'Chat messages' }).getByText('Welcome, Ann').waitFor();
    t.pass('chat flows both ways');
    const fromTeacher = ann
      .getByRole('log', { name: 'Chat messages' })
      .getByRole('listitem')
      .filter({ hasText: 'Welcome, Ann' });
    t.same(
      await fromTeacher.locator('.badge').allInnerTexts(),
      ['Moderator'],
      "the moderator's message carries the badge",
    );
    t.equal(await fromTeacher.locator('.name').innerText(), 'Teacher', 'beside the name, not in it');

    // Sub-groups: create two (Moderation tab), move Ann into one (People tab; no waiting room), bring everyone back.
    await mod.getByRole('button', { name: 'Moderation' }).click();
    await mod.getByRole('spinbutton', { name: 'Number of sub-groups' }).fill('2');
    await mod.getByRole('button', { name: 'Create sub-groups' }).click();
    // Named in the page's words, never by id (issue 31 point 14).
    await mod.getByRole('list', { name: 'The sub-groups' }).getByText('Group 2', { exact: true }).waitFor();
    await mod.getByRole('tab', { name: 'People' }).click();
    const choice = mod.getByRole('combobox', { name: 'Sub-group for Ann' });
    await choice.selectOption('lesson-g1');
    await choice.focus();
    // Ann's camera changes while the moderator chooses: the list is redrawn, the choice stays.
    await mod.evaluate(() => {
      const w = window as unknown as { __redraws: number };
      w.__redraws = 0;
      new MutationObserver(() => w.__redraws++).observe(document.querySelector('ul[aria-label="Participants"]')!, {
        childList: true,
      });
    });
    await ann.getByRole('button', { name: 'Turn camera off' }).click();
    // A loaded machine gets a minute, as for the moves below (CI saw this wait pass 15 s twice).
    await until(
      'the participant list to be redrawn',
      async () => (await mod.evaluate(() => (window as unknown as { __redraws: number }).__redraws)) > 0,
      60_000,
    ).catch(async (err: Error) => {
      // Where the redraw stopped: Ann's own button, and what the moderator's page last said.
      const pressed = await ann.getByRole('button', { name: /Turn camera/ }).getAttribute('aria-pressed');
      const said = await mod.evaluate(() => document.getElementById('announcer')?.textContent ?? '');
      const lists = await mod.evaluate(() => document.querySelectorAll('ul[aria-label="Participants"]').length);
      throw new Error(
        `${err.message}; Ann's camera button aria-pressed=${pressed}, the moderator's page said "${said}", ${lists} participant lists`,
      );
    });
    t.equal(await choice.inputValue(), 'lesson-g1', 'the chosen sub-group survives the redraw');
    t.equal(
      await mod.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Sub-group for Ann',
      'and so does the focus',
    );
    await ann.getByRole('button', { name: 'Turn camera on' }).click();
    await mod.getByRole('button', { name: 'Move Ann', exact: true }).click();
    // The move is a same-document switch (history API), so the address itself is polled rather
    // than waiting for a load event; a loaded machine gets a minute.
    await until('Ann to arrive in the sub-group', async () => /\/room\/lesson-g1$/.test(ann.url()), 60_000).catch(
      async (err: Error) => {
        // What both pages last said, so a failure here tells where the move stopped.
        const said = async (page: typeof ann) =>
          page.evaluate(() => document.getElementById('announcer')?.textContent ?? '');
        throw new Error(
          `${err.message.split('\n')[0]}; Ann's page said "${await said(ann)}", the moderator's "${await said(mod)}", Ann is at ${ann.url()}`,
        );
      },
    );
    await ann.getByRole('toolbar', { name: 'Meeting controls' }).waitFor();
    t.pass('Ann is in the sub-group without knocking');
    t.notOk(await ann.getByRole('button', { name: 'Ask to join' }).isVisible(), 'no waiting screen on the way');
    await mod.getByRole('tab', { name: 'Moderation' }).click();
    await mod.getByRole('button', { name: 'Bring everyone back' }).click();
    await until('Ann to be back in the lesson', async () => /\/room\/lesson$/.test(ann.url()), 60_000);
    await ann.getByRole('listitem', { name: 'Teacher' }).waitFor();
    t.pass('everyone is back in the main room with the moderator');

    // Lock microphones: Ann's page stops sending audio, and the console cannot force it.
    await until('audio from Ann at the moderator', async () => (await inboundTotal(mod, 'audio', 'bytesReceived')) > 0);
    await mod.getByRole('checkbox', { name: 'Lock microphones' }).check();
    await until("Ann's microphone control to lock", async () =>
      ann.getByRole('button', { name: /microphone/ }).isDisabled(),
    );
    // Her page (and Ben's) first stops handing the microphone to every sender: page state, no timing.
    const sendingAudio = (page: Page) =>
      page.evaluate(() =>
        (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers
          .filter((pc) => pc.connectionState !== 'closed')
          .some((pc) => pc.getSenders().some((sender) => sender.track?.kind === 'audio')),
      );
    await until(
      'Ann and Ben to stop handing audio to their peer connections',
      async () => !(await sendingAudio(ann)) && !(await sendingAudio(ben)),
      90_000,
    );
    // Then the bytes at the moderator stop rising (packets in flight arrive for a moment; they
    // never would stop if the lock were not honoured), and stay put.
    let lastAudio = -1;
    await until(
      'audio from Ann to stop at the moderator',
      async () => {
        const now = await inboundTotal(mod, 'audio', 'bytesReceived');
        const still = now === lastAudio;
        lastAudio = now;
        if (!still) await mod.waitForTimeout(750);
        return still;
      },
      90_000,
    );
    const audioBefore = await inboundTotal(mod, 'audio', 'bytesReceived');
    await mod.waitForTimeout(2000);
    t.equal(
      await inboundTotal(mod, 'audio', 'bytesReceived'),
      audioBefore,
      'no audio from a locked microphone reaches the moderator',
    );

    const forced = await ann.evaluate(async () => {
      const url = (window as unknown as { __meetSocketUrls: string[] }).__meetSocketUrls.at(-1)!;
      const socket = new WebSocket(url);
      const messages: { type: string; code?: string; participants?: { participant_id: string; role: string }[] }[] = [];
      socket.onmessage = (event) => messages.push(JSON.parse(String(event.data)));
      // Waits for what the server says rather than a fixed time: the suite runs two files at once on two cores.
      const until = async (seen: () => boolean) => {
        for (const deadline = Date.now() + 15_000; !seen() && Date.now() < deadline;)
          await new Promise((resolve) => setTimeout(resolve, 50));
      };
      await new Promise((resolve) => (socket.onopen = resolve));
      await until(() => messages.some((m) => m.type === 'welcome'));
      const moderatorId = messages
        .find((m) => m.type === 'welcome')!
        .participants!.find((p) => p.role === 'moderator')!.participant_id;
      const pc = new RTCPeerConnection();
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      pc.addTrack(stream.getAudioTracks()[0]!, stream);
      await pc.setLocalDescription(await pc.createOffer());
      socket.send(
        JSON.stringify({ type: 'signal', to: moderatorId, data: { description: pc.localDescription!.toJSON() } }),
      );
      await until(() => messages.some((m) => m.type === 'error'));
      socket.close();
      return messages.filter((m) => m.type === 'error').map((m) => m.code);
    });
    t.same(forced, ['locked'], 'an audio offer sent by hand from her console is refused as locked');
    await browser.screenshot(mod, 'meeting-moderator-locked');
    const socketUrls = await mod.evaluate(() => (window as unknown as { __meetSocketUrls: string[] }).__meetSocketUrls);
    t.ok(
      socketUrls.length > 0 && socketUrls.every((url) => url.startsWith(`${d.url.replace(/^http/, 'ws')}/`)),
      `the live socket went to the page's own host: ${socketUrls.map((url) => url.split('?')[0]).join(' ')}`,
    );
    t.same(violations, [], "under connect-src 'self' the page reported no CSP violation");

    // A removal on the mesh: the moderator removes Ben from People; his page closes every
    // connection and says why, and the moderator's connection to him closes too.
    await mod.getByRole('tab', { name: 'People' }).click();
    const openToBen = () =>
      mod.evaluate(
        () =>
          (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers.filter(
            (pc) => pc.connectionState !== 'closed',
          ).length,
      );
    const before = await openToBen();
    await mod.getByRole('button', { name: 'Remove Ben', exact: true }).click();
    await mod
      .getByRole('dialog', { name: 'Remove Ben from the meeting?' })
      .getByRole('button', { name: 'Remove', exact: true })
      .click();
    await until(
      "Ben's connections to close",
      () =>
        ben.evaluate(() =>
          (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers.every(
            (pc) => pc.connectionState === 'closed',
          ),
        ),
      10_000,
      50,
    );
    await until(
      "the moderator's connection to Ben to close",
      async () => (await openToBen()) === before - 1,
      10_000,
      50,
    );
    await ben.getByRole('heading', { name: 'A moderator removed you from the meeting.' }).waitFor();
    t.equal(
      await ben.getByRole('link', { name: 'Ask to join again' }).count(),
      1,
      'removed on the mesh: told, with the way to ask again',
    );
  });

  t.test('an instance that forces the waiting room offers no way to disable it', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_WAITING_ROOM: 'forced' });
    await rooms.create(d, { room_id: 'exam', name: 'Exam' });
    const browser = await openBrowser(t);
    const { page } = await browser.newPage('moderator');
    const link = await call(d, '/api/rooms/exam/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Proctor' },
    });
    await page.goto(`${d.url}${link.body.url}`);
    await page.getByText('Joining as Proctor').waitFor();
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('region', { name: 'Waiting' }).getByRole('button', { name: 'Admit all' }).waitFor();
    t.equal(await page.getByRole('switch', { name: 'Waiting room for later arrivals' }).count(), 0);
  });
}
