// Issue 31 point 10 in real Chromium: a teacher (desktop, English) and a pupil (phone, German) in
// one lesson. The pupil raises and lowers her hand and reacts; the teacher sees the hands in
// order (list and tile mark), lowers one, mutes the pupil (who unmutes herself: nobody else can),
// and ends the meeting for everyone behind a real dialog; both pages show the end and let their
// camera and microphone go. One daemon, one browser; axe on each new screen state. The rules
// themselves (who may send what, the flood of reactions) are the service test's
// (test/service/live/classroom-controls.test.ts); the reducers are the unit tier's.
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, dataDirFor, rooms } from '../helpers/api.js';
import { inProcessDaemonFor } from '../helpers/in-process-daemon.js';
import { until } from '../helpers/net.js';
import { saidCount, untilSaid } from '../helpers/announcements.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';

const actionTimeoutMs = 60_000;

/** Her own camera and microphone tracks (her own tile plays them), kept on the page to look at after the end. */
const keepOwnTracks = (page: Page) =>
  page.evaluate(() => {
    const own = [...document.querySelectorAll('video')].find((v) => v.muted && v.srcObject instanceof MediaStream);
    const tracks = (own?.srcObject as MediaStream | undefined)?.getTracks() ?? [];
    (window as unknown as { ownTracks: MediaStreamTrack[] }).ownTracks = tracks;
    return tracks.length;
  });
const ownTrackStates = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { ownTracks: MediaStreamTrack[] }).ownTracks.map((track) => ({
      kind: track.kind,
      enabled: track.enabled,
      readyState: track.readyState,
    })),
  );

t.setTimeout(240_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('hands, reactions, muting and the end of the meeting, teacher and pupil', async (t) => {
    const d = await inProcessDaemonFor(t, dataDirFor(t));
    await rooms.create(d, { room_id: 'lesson', name: 'Maths 7B', waiting_room: 'off' });
    const browser = await openBrowser(t);

    const { page: teacher } = await browser.newPage('teacher');
    teacher.setDefaultTimeout(actionTimeoutMs);
    await teacher.setViewportSize({ width: 1280, height: 800 });
    const link = await call(d, '/api/rooms/lesson/links', {
      method: 'POST',
      json: { role: 'moderator', name: 'Ms Keller' },
    });
    await teacher.goto(`${d.url}${link.body.url}`);
    await teacher.getByRole('button', { name: 'Join' }).click();
    await teacher.getByRole('button', { name: 'Mute microphone' }).waitFor();

    const { page: ann } = await browser.newPage('ann');
    ann.setDefaultTimeout(actionTimeoutMs);
    await ann.setViewportSize({ width: 390, height: 844 });
    await ann.goto(`${d.url}/room/lesson?lang=de`);
    await ann.getByLabel('Ihr Name').fill('Ann');
    await ann.getByRole('button', { name: 'Teilnehmen' }).click();
    await ann.getByRole('button', { name: 'Mikrofon stummschalten' }).waitFor();
    t.equal(await ann.getByRole('button', { name: 'Konferenz für alle beenden' }).count(), 0, 'a pupil cannot end it');

    // Raise hand: her button says so; the teacher sees the list, the mark on the tile, and hears it.
    const raise = ann.getByRole('button', { name: 'Hand heben' });
    let mark = await saidCount(teacher);
    await raise.click();
    const lower = ann.getByRole('button', { name: 'Hand senken' });
    await lower.waitFor();
    t.equal(await lower.getAttribute('aria-pressed'), 'true', 'her hand button is pressed');
    const hands = teacher.getByRole('list', { name: 'Raised hands' });
    await hands.getByText('Ann').waitFor();
    await untilSaid(teacher, /Ann raised their hand/, { since: mark, ms: 15_000 });
    const annTile = teacher.getByRole('listitem', { name: 'Ann' });
    t.match(await annTile.innerText(), /1/, 'the tile shows her hand, first in line');
    t.ok(await annTile.getByText('Hand raised, number 1').count(), 'the mark has words for a screen reader');
    await browser.screenshot(teacher, 'classroom-hand-desktop');
    await browser.screenshot(ann, 'classroom-hand-phone-de');
    await browser.checkAccessibility(teacher, 'teacher: a hand raised');
    await browser.checkAccessibility(ann, 'pupil (de, phone): her hand raised');

    // The teacher lowers it; the pupil hears so.
    mark = await saidCount(ann);
    await hands.getByRole('button', { name: "Lower Ann's hand" }).click();
    await raise.waitFor();
    await untilSaid(ann, /Ihre Hand ist gesenkt/, { since: mark, ms: 15_000 });
    await teacher.getByText('No hands raised.').waitFor();
    t.equal(await annTile.getByText('Hand raised, number 1').count(), 0, 'the mark is gone from the tile');

    // A reaction: a menu of a handful, shown on her tile to everyone, announced.
    await ann.getByRole('button', { name: 'Reagieren' }).click();
    const menu = ann.getByRole('group', { name: 'Reaktionen' });
    await menu.waitFor();
    // The anchors' usual set, each a drawing (no emoji font needed) named in her language.
    t.same(
      await menu
        .getByRole('button')
        .evaluateAll((buttons) =>
          buttons.map((b) => [
            b.getAttribute('aria-label'),
            b.querySelector('svg') !== null,
            /\p{Extended_Pictographic}/u.test(b.textContent ?? ''),
          ]),
        ),
      ['Daumen hoch', 'Daumen runter', 'Applaus', 'Feiern', 'Lachen', 'Überrascht', 'Herz'].map((n) => [
        n,
        true,
        false,
      ]),
      'seven reactions, each an icon with a German name and no emoji text',
    );
    await browser.checkAccessibility(ann, 'pupil (de, phone): the reactions open');
    await browser.screenshot(ann, 'classroom-reactions-phone-de');
    await ann.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    t.equal(
      await ann.evaluate(() => document.activeElement?.getAttribute('aria-label')),
      'Reagieren',
      'Escape closes the menu, focus back on React',
    );
    await ann.getByRole('button', { name: 'Reagieren' }).click();
    mark = await saidCount(teacher);
    await menu.getByRole('button', { name: 'Applaus' }).click();
    await teacher.locator('.tile-reaction[data-reaction="clap"] svg').waitFor();
    await untilSaid(teacher, /Ann reacted: Clap/, { since: mark, ms: 15_000 });
    await browser.screenshot(teacher, 'classroom-reaction-desktop');
    await teacher.locator('.tile-reaction').waitFor({ state: 'detached' });
    t.pass('the reaction goes after a few seconds');

    // Mute Ann: her page turns the microphone off and says who; she may unmute; nobody else can.
    t.ok((await keepOwnTracks(ann)) >= 2, 'her page sends a camera and a microphone');
    await teacher.getByRole('button', { name: 'Mute Ann' }).click();
    const unmute = ann.getByRole('button', { name: 'Stummschaltung aufheben' });
    await unmute.waitFor();
    t.equal(await unmute.getAttribute('aria-pressed'), 'true', 'her microphone button shows it off');
    await ann.getByText('Ms Keller hat Ihr Mikrofon stummgeschaltet.').first().waitFor();
    t.same(
      (await ownTrackStates(ann)).filter((s) => s.kind === 'audio').map((s) => s.enabled),
      [false],
      'her microphone track is off: nothing is sent',
    );
    await teacher.getByRole('button', { name: 'Mute Ann' }).waitFor({ state: 'detached' });
    t.equal(await teacher.getByRole('button', { name: /unmute ann/i }).count(), 0, 'the teacher has no Unmute Ann');
    await browser.checkAccessibility(ann, 'pupil (de, phone): muted by the teacher');
    await unmute.click();
    await ann.getByRole('button', { name: 'Mikrofon stummschalten' }).waitFor();
    t.same(
      (await ownTrackStates(ann)).filter((s) => s.kind === 'audio').map((s) => s.enabled),
      [true],
      'she unmuted herself',
    );
    await teacher.getByRole('button', { name: 'Mute Ann' }).waitFor();

    // End the meeting for everyone: a real dialog, Escape cancels, then the end.
    await teacher.getByRole('button', { name: 'Moderation', exact: true }).first().click();
    const endButton = teacher.getByRole('button', { name: 'End meeting for everyone' });
    await endButton.click();
    const dialog = teacher.getByRole('dialog', { name: 'End the meeting for everyone?' });
    await dialog.waitFor();
    t.equal(
      await teacher.evaluate(() => document.activeElement?.textContent),
      'Cancel',
      'the dialog opens on Cancel: a stray Enter ends nothing',
    );
    await browser.checkAccessibility(teacher, 'teacher: the end confirmation');
    await browser.screenshot(teacher, 'classroom-end-dialog-desktop');
    await teacher.keyboard.press('Tab');
    await teacher.keyboard.press('Tab');
    t.ok(
      await teacher.evaluate(() => document.querySelector('dialog[open]')?.contains(document.activeElement) ?? false),
      'Tab stays inside the dialog',
    );
    await teacher.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    t.equal(
      await teacher.evaluate(() => document.activeElement?.textContent),
      'End meeting for everyone',
      'Escape cancels, focus back on the button',
    );
    await ann.getByRole('button', { name: 'Mikrofon stummschalten' }).waitFor();
    t.pass('the pupil is still in the meeting after the cancel');
    await keepOwnTracks(teacher);
    await endButton.click();
    await dialog.getByRole('button', { name: 'End meeting for everyone' }).click();
    await teacher.getByRole('heading', { name: 'The meeting has ended.' }).waitFor();
    await ann.getByRole('heading', { name: 'Die Konferenz ist beendet.' }).waitFor();
    for (const [who, page] of [
      ['teacher', teacher],
      ['pupil', ann],
    ] as const) {
      await until(`the ${who}'s camera and microphone are let go`, async () =>
        (await ownTrackStates(page)).every((s) => s.readyState === 'ended'),
      );
      t.pass(`the ${who}'s page lets her camera and microphone go`);
    }
    await browser.checkAccessibility(ann, 'pupil (de, phone): the meeting ended');
    await browser.screenshot(ann, 'classroom-ended-phone-de');
  });
}
