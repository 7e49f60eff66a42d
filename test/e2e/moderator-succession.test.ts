// Issue 14 point 8 in real Chromium: two host pages embed the same open room through the real
// external_api.js and the real gateway (COMPAT_JITSI_ALLOW_ANONYMOUS=true, no token). Ann, first,
// is the moderator; Bob is not. Ann hangs up: Bob's page shows the moderator tools and says so,
// and his host page hears participantRoleChanged.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Page } from 'playwright-core';
import { inLoopbackNamespace, openBrowser } from '../helpers/browser.js';
import { compatInProcessFor } from '../helpers/compat.js';
import { freePort, until as untilEvery } from '../helpers/net.js';

const until = (what: string, check: () => Promise<boolean>, ms = 30_000) => untilEvery(what, check, ms, 200);

t.setTimeout(240_000);

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

if (!inLoopbackNamespace(t, import.meta.url)) {
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
    await until(
      'the announcement',
      async () => (await bob.frame.locator('#announcer').textContent()) === 'You are now a moderator',
    );
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
