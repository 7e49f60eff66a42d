// Rooms of the compat module in real Chromium, one browser file (each costs about 9 CPU-s before
// its first assertion): a meeting-API room behind its join link, and an open room of the embed
// gateway that passes the moderator role on.
//
// Issue 11 point 1 in a real browser: a meeting-API room shows itself only to its join link.
// The link enters; the same address without it meets the guest policy (here: refused); an
// address that names no room says so after the name, exactly as the unlisted one would.
// Issue 33 point 6: leaving sends her to the join's own logoutURL (not the create's). Point 8:
// her join's avatarURL is shown on her tile while her camera is off; also for a guest=true join
// that waits and is admitted (her picture travels with her request, unseen while she waits).
//
// Issue 14 point 8 in real Chromium: two host pages embed the same open room through the real
// external_api.js and the real gateway (COMPAT_JITSI_ALLOW_ANONYMOUS=true, no token). Ann, first,
// is the moderator; Bob is not. Ann hangs up: Bob's page shows the moderator tools and says so,
// and his host page hears participantRoleChanged.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Page } from 'playwright-core';
import { expectNoAxeViolations } from '../helpers/accessibility.js';
import { frameOf, saidCount, untilSaid } from '../helpers/announcements.js';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { ConfapiClient, compatInProcessFor, roomAndToken } from '../helpers/compat.js';
import { freePort, until as untilEvery } from '../helpers/net.js';

const secret = 'invitation-rooms-secret-91';

const until = (what: string, check: () => Promise<boolean>, ms = 30_000) => untilEvery(what, check, ms, 200);

type Event = { name: string; data: any };

const eventsOf = (page: Page): Promise<Event[]> => page.evaluate(() => (window as any).events as Event[]);
async function waitEvent(page: Page, name: string, match: (data: any) => boolean = () => true): Promise<any> {
  let found: Event | undefined;
  await until(`${name} on the host page`, async () => {
    found = (await eventsOf(page)).find((e) => e.name === name && match(e.data));
    return found !== undefined;
  });
  return found!.data;
}

t.setTimeout(240_000);

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('the join link enters, the bare address is refused, a missing room is named as such', async (t) => {
    const d = await compatInProcessFor(t, {
      COMPAT_API_SHARED_SECRET: secret,
      COMPAT_FRONTEND_URL: 'http://frontend.invalid',
    });
    const api = new ConfapiClient(d.compatUrl, secret);
    await api.get('create', [
      ['meetingID', 'course-7'],
      ['guestPolicy', 'ALWAYS_DENY'],
      ['logoutURL', 'http://platform.invalid/course-7'],
    ]);
    // The platform's page she returns to: a page of the service itself, so the browser can show it.
    const logoutURL = `${d.url}/?back-from=course-7`;
    const picture = `${d.url}/assets/web/static/backdrop.svg`;
    const joined = await api.get('join', [
      ['meetingID', 'course-7'],
      ['fullName', 'Pupil Pia'],
      ['role', 'VIEWER'],
      ['redirect', 'false'],
      ['logoutURL', logoutURL],
      // A picture the page may load: one of the service's own (the room page allows 'self' and https images).
      ['avatarURL', picture],
    ]);
    const { roomId, token, url: joinUrl } = roomAndToken(String(joined.xml.url));
    const browser = await openBrowser(t);
    // Refusals this test provokes: the unlisted room hides itself from the stranger without
    // her join link (404 like a missing room) and refuses her name (403 guest_denied); the lost
    // guest's address names no room at all.
    browser.expectConsoleErrors(
      /^stranger: 404 GET \S+\/exists$/,
      'an unlisted room answers a bare address as a missing room',
    );
    browser.expectConsoleErrors(
      /^stranger: 403 POST \S+\/start$/,
      'the bare address of an invitation-only room is refused on purpose',
    );
    browser.expectConsoleErrors(
      /^lost: 404 (GET \S+\/exists|POST \S+\/start)$/,
      'the lost guest opens a room that does not exist on purpose',
    );

    const invited = await browser.newPage('invited');
    await invited.page.goto(`${d.url}${joinUrl.pathname}${joinUrl.search}`);
    t.equal(joinUrl.searchParams.get('t'), token);
    // Her link names her (the platform did): the page says so and asks nothing.
    await invited.page.getByText('Joining as Pupil Pia').waitFor();
    t.equal(await invited.page.getByLabel('Your name').count(), 0, 'no name field for a link that carries one');
    await invited.page.getByRole('button', { name: 'Join' }).click();
    await invited.page.waitForURL(new RegExp(`/room/${roomId}$`));
    t.pass('the join link enters the meeting');
    const tile = invited.page.getByRole('listitem', { name: 'Pupil Pia' });
    await invited.page.getByRole('button', { name: 'Turn camera off' }).click();
    const avatar = tile.locator('img.avatar');
    await avatar.waitFor({ state: 'visible' });
    t.equal(await avatar.getAttribute('alt'), '', 'her picture on her camera-off tile, with an empty alt');
    t.ok(await avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'and it loaded');
    t.equal(await tile.locator('.initials').isVisible(), false, 'instead of her initials');
    await browser.screenshot(invited.page, 'avatar-camera-off-desktop');
    await invited.page.setViewportSize({ width: 390, height: 844 });
    await browser.screenshot(invited.page, 'avatar-camera-off-phone');
    await invited.page.setViewportSize({ width: 1280, height: 800 });
    await expectNoAxeViolations(t, invited.page, 'a camera-off tile with her picture');
    await invited.page.getByRole('button', { name: 'Leave meeting' }).click();
    await invited.page.waitForURL(logoutURL);
    t.pass("leaving lands on the join's own logoutURL");

    const stranger = await browser.newPage('stranger');
    await stranger.page.goto(`${d.url}/room/${roomId}`);
    t.equal(await stranger.page.getByLabel('Access code').count(), 0, 'nothing is asked but the name');
    await stranger.page.getByLabel('Your name').fill('Stranger');
    await stranger.page.getByRole('button', { name: 'Join' }).click();
    await stranger.page
      .getByRole('alert')
      .filter({ hasText: 'admits only people invited through its platform' })
      .waitFor();
    t.pass('the bare address is refused in plain words');
    await browser.screenshot(stranger.page, 'invitation-refused');

    const lost = await browser.newPage('lost');
    await lost.page.goto(`${d.url}/room/cf-00000000000000000000000000000000`);
    await lost.page.getByLabel('Your name').fill('Lost');
    await lost.page.getByRole('button', { name: 'Join' }).click();
    await lost.page.getByRole('alert').filter({ hasText: 'does not exist' }).waitFor();
    t.pass('a missing room says so');

    // A guest=true join under ASK_MODERATOR waits, is admitted, and has her picture.
    await api.get('create', [
      ['meetingID', 'course-8'],
      ['guestPolicy', 'ASK_MODERATOR'],
    ]);
    const linkOf = async (fullName: string, more: [string, string][]) =>
      roomAndToken(
        String(
          (await api.get('join', [['meetingID', 'course-8'], ['fullName', fullName], ['redirect', 'false'], ...more]))
            .xml.url,
        ),
      ).url;
    const teacherLink = await linkOf('Teacher Tom', [['role', 'MODERATOR']]);
    const guestLink = await linkOf('Gina Guest', [
      ['role', 'VIEWER'],
      ['guest', 'true'],
      ['avatarURL', picture],
    ]);
    const teacher = await browser.newPage('teacher');
    await teacher.page.goto(`${d.url}${teacherLink.pathname}${teacherLink.search}`);
    await teacher.page.getByRole('button', { name: 'Join' }).click();
    await teacher.page.getByRole('button', { name: 'Leave meeting' }).waitFor();
    const gina = await browser.newPage('gina');
    await gina.page.goto(`${d.url}${guestLink.pathname}${guestLink.search}`);
    await gina.page.getByRole('button', { name: 'Join' }).click();
    await teacher.page.getByRole('button', { name: 'Admit Gina Guest from the notification' }).waitFor();
    t.equal(await gina.page.locator('img.avatar').count(), 0, 'no picture on the waiting screen');
    t.equal(
      await teacher.page.locator('img[src*="backdrop.svg"]').count(),
      0,
      "nor in the moderators' list: name and note only",
    );
    await teacher.page.getByRole('button', { name: 'Admit Gina Guest from the notification' }).click();
    await gina.page.getByRole('button', { name: 'Turn camera off' }).click();
    for (const [who, page] of [
      ['her own page', gina.page],
      ["the teacher's page", teacher.page],
    ] as const) {
      const guestTile = page.getByRole('listitem', { name: 'Gina Guest' });
      await guestTile.locator('img.avatar').waitFor({ state: 'visible' });
      t.equal(await guestTile.locator('.initials').isVisible(), false, `${who}: her picture, not her initials`);
    }
    t.same(
      [...invited.errors, ...stranger.errors, ...lost.errors, ...teacher.errors, ...gina.errors],
      [],
      'no page errors',
    );
  });

  t.test('open room in the browser: the second person becomes moderator when the first hangs up', async (t) => {
    let compatUrl = '';
    const host = createServer((req, res) => {
      if (req.url !== '/host.html') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><link rel="icon" href="data:,"></head><body><div id="meet"></div>
<script src="${compatUrl}/external_api.js"></script>
<script>
  window.events = [];
  window.start = (domain, name) => {
    const api = new JitsiMeetExternalAPI(domain, { roomName: 'Drop In', parentNode: document.getElementById('meet'), userInfo: { displayName: name }, configOverwrite: { prejoinConfig: { enabled: false } } });
    for (const event of api.getSupportedEvents()) api.addListener(event, (data) => window.events.push({ name: event, data }));
    window.api = api;
  };
</script></body></html>`);
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => host.close(() => resolve())));
    const hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const enginePort = await freePort();
    const d = await compatInProcessFor(t, {
      SERVICE_HTTP_ADDR: `127.0.0.1:${enginePort}`,
      COMPAT_FRONTEND_URL: `http://127.0.0.1:${enginePort}`,
      COMPAT_JITSI_ALLOW_ANONYMOUS: 'true',
    });
    compatUrl = d.compatUrl;
    const domain = new URL(d.compatUrl).host;
    const browser = await openBrowser(t);

    const join = async (name: string) => {
      const { page, errors } = await browser.newPage(name);
      await page.goto(`${hostOrigin}/host.html`);
      await page.evaluate(([domain, name]) => (window as any).start(domain, name), [domain, name]);
      const joined = await waitEvent(page, 'videoConferenceJoined');
      const frame = page.frameLocator('iframe');
      return { page, errors, joined, frame };
    };

    const ann = await join('Ann');
    const bob = await join('Bob');
    t.equal(await ann.page.evaluate(() => (window as any).api.getNumberOfParticipants()), 2, 'both are in');
    const rooms = await bob.page.evaluate(() => (window as any).api.getRoomsInfo());
    t.match(
      rooms.rooms[0].participants,
      [
        { displayName: 'Bob', role: 'participant' },
        { displayName: 'Ann', role: 'moderator' },
      ],
      'Ann, first, is the moderator; Bob is not',
    );
    await t.resolves(
      ann.frame.getByRole('heading', { name: 'Waiting' }).waitFor({ timeout: 10_000 }),
      "Ann's page shows the waiting section",
    );
    t.equal(await bob.frame.getByRole('heading', { name: 'Waiting' }).count(), 0, "Bob's does not");
    t.equal(await bob.frame.getByRole('button', { name: 'Create sub-groups' }).count(), 0, 'nor the moderator tools');

    // Bob's meeting is the iframe's document: its announcements are kept there, from this mark on.
    const bobMeeting = await frameOf(bob.frame);
    const mark = await saidCount(bobMeeting);
    await ann.page.evaluate(() => (window as any).api.executeCommand('hangup'));
    await waitEvent(ann.page, 'readyToClose');
    const changed = await waitEvent(bob.page, 'participantRoleChanged');
    t.same(changed, { id: bob.joined.id, role: 'moderator' }, "Bob's host page hears participantRoleChanged");
    await t.resolves(
      bob.frame.getByRole('heading', { name: 'Waiting' }).waitFor({ timeout: 10_000 }),
      'the waiting section appears',
    );
    // The tools sit in the side panel's Moderation tab, whose toolbar button only a moderator has.
    await bob.frame.getByRole('button', { name: 'Moderation' }).click({ timeout: 10_000 });
    await t.resolves(
      bob.frame.getByRole('button', { name: 'Create sub-groups' }).waitFor({ timeout: 10_000 }),
      'and the moderator tools',
    );
    await untilSaid(bobMeeting, 'You are now a moderator', { since: mark, exact: true, ms: 30_000 });
    t.equal(
      await bob.frame.locator('#announcer').getAttribute('role'),
      'status',
      'announced through the status live region',
    );
    const after = await bob.page.evaluate(() => (window as any).api.getRoomsInfo());
    t.match(after.rooms[0].participants, [{ displayName: 'Bob', role: 'moderator' }], 'getRoomsInfo follows');
    t.same([...ann.errors, ...bob.errors], [], 'no page errors');
  });
}
