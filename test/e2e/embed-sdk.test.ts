// Issue 14, "Tests that show it" (second bullet) and point 9 across sites, in real Chromium:
// the service behind TLS on loopback (a small Node proxy with a self-signed certificate in
// front of both listeners, as nginx would be), the embedding pages on ANOTHER SITE
// (http://localhost:<port> while the service is https://127.0.0.1:<port>). One page renders
// the real @jitsi/react-sdk JitsiMeeting (bundled with esbuild at test time) with only
// `domain` pointed at the service; the other loads <script src=https://…/external_api.js>.
// Tokens are minted with jose as an application's backend would (HS256). Gateway rooms wait
// with `all` (COMPAT_JITSI_WAITING_ROOM), so the second person's admission only works if her
// waiting cookie reaches the service from a cross-site frame.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import t from 'tap';
import type { Frame, Page } from 'playwright-core';
import { inLoopbackNamespace, openBrowser, type BrowserSession } from '../helpers/browser.js';
import { compatInProcessFor } from '../helpers/compat.js';
import { freePort, until as untilEvery } from '../helpers/net.js';
import { reactPageScript } from '../helpers/react-page.js';
import { startTlsProxy } from '../helpers/tls-proxy.js';

const until = (what: string, check: () => Promise<boolean>, ms = 60_000) => untilEvery(what, check, ms, 250);

t.setTimeout(420_000);

const appId = 'embed-app';
const appSecret = 'embed-app-secret-0123456789abcdefghijkl';
const schoolAppId = 'school-app';
const schoolSecret = 'school-app-secret-0123456789abcdefghijk';
const roomName = 'Maths 101';

type Event = { name: string; data: any };

/** What an application's backend does: an HS256 token with jose. */
function mint(secret: string, iss: string, room: string, name: string, moderator: boolean): Promise<string> {
  return new SignJWT({ room, context: { user: { name, moderator } } })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(iss)
    .setAudience('jitsi')
    .setSubject('meet.example.org')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

/** The embedding application's site: the React page and the plain script page. */
function hostServer(serviceUrl: string, reactScript: string): Server {
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host.invalid').pathname;
    if (path === '/react.html') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><html><body><div id="root"></div><script src="/react-page.js"></script></body></html>');
    } else if (path === '/react-page.js') {
      res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8' }).end(reactScript);
    } else if (path === '/plain.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body>
<div id="meet" style="height: 480px"></div>
<script src="${serviceUrl}/external_api.js"></script>
<script>
  window.events = []; window.loaded = 0;
  window.start = (domain, options) => {
    const api = new JitsiMeetExternalAPI(domain, { configOverwrite: { prejoinConfig: { enabled: false } }, ...options, parentNode: document.getElementById('meet'), onload: () => { window.loaded += 1; } });
    for (const name of api.getSupportedEvents()) api.addListener(name, (data) => window.events.push({ name, data }));
    window.api = api;
  };
</script></body></html>`);
    } else {
      res.writeHead(404).end();
    }
  });
}

const eventsOf = (page: Page): Promise<Event[]> => page.evaluate(() => (window as any).events as Event[]);
const count = async (page: Page, name: string): Promise<number> =>
  (await eventsOf(page)).filter((e) => e.name === name).length;
/** The `nth` (1-based) event of that name, waited for. */
async function waitEvent(page: Page, name: string, nth = 1): Promise<any> {
  let found: Event[] = [];
  await until(`${name} #${nth} on the host page`, async () => {
    found = (await eventsOf(page)).filter((e) => e.name === name);
    return found.length >= nth;
  });
  return found[nth - 1]!.data;
}

/** The meeting frame of a host page (the one that shows /room/…). */
function meetingFrame(page: Page): Frame | undefined {
  return page.frames().find((f) => f !== page.mainFrame() && /^https:\/\/127\.0\.0\.1:\d+\/room\//.test(f.url()));
}

type RoomDocument = { url: string; status: number; csp: string };

/** Every /room/… document the page's frames received, with its CSP (what Chromium enforced). */
function recordRoomDocuments(page: Page): RoomDocument[] {
  const seen: RoomDocument[] = [];
  page.on('response', (r) => {
    if (r.request().resourceType() === 'document' && /\/room\//.test(new URL(r.url()).pathname)) {
      seen.push({ url: r.url(), status: r.status(), csp: r.headers()['content-security-policy'] ?? '' });
    }
  });
  return seen;
}

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('the real @jitsi/react-sdk and external_api.js, cross-site, behind TLS', async (t) => {
    const reactScript = await reactPageScript(t);
    const proxyPort = await freePort();
    const serviceUrl = `https://127.0.0.1:${proxyPort}`;
    const domain = `127.0.0.1:${proxyPort}`;
    const host = hostServer(serviceUrl, reactScript);
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    t.teardown(
      () =>
        new Promise<void>((resolve) => {
          host.closeAllConnections();
          host.close(() => resolve());
        }),
    );
    const hostPort = (host.address() as { port: number }).port;
    // Another site than the service: another host name (localhost vs 127.0.0.1) and scheme.
    const appOrigin = `http://localhost:${hostPort}`;
    // Same host server under the service's host name: an origin the school tenant does not allow.
    const strangerOrigin = `http://127.0.0.1:${hostPort}`;

    const configDir = mkdtempSync(join(tmpdir(), 'meet-embed-sdk-'));
    t.teardown(() => rmSync(configDir, { recursive: true, force: true }));
    const tenantsFile = join(configDir, 'tenants.toml');
    writeFileSync(
      tenantsFile,
      `[tenants.school]\napp_id = "${schoolAppId}"\napp_secret = "${schoolSecret}"\nembed_origins = ["${appOrigin}"]\n`,
      {
        mode: 0o600,
      },
    );

    const d = await compatInProcessFor(t, {
      COMPAT_FRONTEND_URL: serviceUrl,
      COMPAT_JITSI_APP_ID: appId,
      COMPAT_JITSI_APP_SECRET: appSecret,
      COMPAT_JITSI_WAITING_ROOM: 'all',
      // As in knock-actions: the closed-window rule has its own tests; on loaded cores a waiting
      // frame's poll came after the default 6 s and Dan's request was closed (a 404) before he hung up.
      SERVICE_WAITING_CLOSED_WINDOW_SECS: '60',
      SERVICE_TRUSTED_PROXIES: '127.0.0.1,::1',
      SERVICE_TENANTS_FILE: tenantsFile,
    });
    await startTlsProxy(t, {
      port: proxyPort,
      engine: d.url,
      compat: d.compatUrl,
      toCompat: (path) => /^\/(?:[^/]+\/)?(?:videoconf\/[^/]+|external_api\.js)$/.test(path),
    });

    const browser: BrowserSession = await openBrowser(t, ['--ignore-certificate-errors']);
    browser.expectConsoleErrors(
      /status of 404 \(Not Found\) \(http:\/\/(localhost|127\.0\.0\.1):\d+\/favicon\.ico\)$/,
      "this test's host page (not the service) has no icon",
    );
    browser.expectConsoleErrors(
      /^stranger: console error: Framing '\S+' violates the following Content Security Policy directive: "frame-ancestors /,
      'the stranger origin is refused by frame-ancestors on purpose',
    );
    const pageErrors: string[] = [];
    const open = async (name: string, url: string) => {
      const { page } = await browser.newPage(name);
      const consoleLines: string[] = [];
      page.on('console', (m) => consoleLines.push(m.text()));
      page.on('pageerror', (err) => pageErrors.push(`${name}: ${String(err)}`));
      const documents = recordRoomDocuments(page);
      await page.goto(url);
      return { page, consoleLines, documents };
    };

    // Ann: the React page, the real SDK, only `domain` pointed here; a moderator token.
    const ann = await open('ann', `${appOrigin}/react.html`);
    await ann.page.evaluate(
      ([domain, roomName, jwt]) => (window as any).start({ domain, roomName, jwt, userInfo: { displayName: 'Ann' } }),
      [domain, roomName, await mint(appSecret, appId, roomName, 'Ann', true)],
    );
    const annJoined = await waitEvent(ann.page, 'videoConferenceJoined');
    t.match(
      annJoined,
      { roomName: roomName.toLowerCase(), displayName: 'Ann', breakoutRoom: false },
      'the SDK page: videoConferenceJoined',
    );
    t.equal(
      await ann.page.evaluate(() =>
        [...document.scripts].map((s) => s.src).find((src) => src.endsWith('/external_api.js')),
      ),
      `${serviceUrl}/external_api.js`,
      'the SDK loaded https://{domain}/external_api.js itself',
    );
    const annFrameSrc = new URL(await ann.page.evaluate(() => (window as any).api.getIFrame().src));
    t.equal(
      `${annFrameSrc.origin}${annFrameSrc.pathname}`,
      `${serviceUrl}/videoconf/Maths%20101`,
      'its iframe goes to the gateway over https',
    );

    // Bob: a plain page with <script src>; a participant token. Gateway rooms wait with `all`.
    const bob = await open('bob', `${appOrigin}/plain.html`);
    await bob.page.evaluate(
      ([domain, roomName, jwt]) => (window as any).start(domain, { roomName, jwt, userInfo: { displayName: 'Bob' } }),
      [domain, roomName, await mint(appSecret, appId, roomName, 'Bob', false)],
    );
    const knock = await waitEvent(ann.page, 'knockingParticipant');
    t.equal(knock.participant.name, 'Bob', "knockingParticipant at the moderator's SDK page");
    await until('Bob’s page to be ready', async () => (await bob.page.evaluate(() => (window as any).loaded)) === 1);
    // Partitioned (CHIPS): kept under the embedding site, which is why it survives third-party cookie blocking.
    const cookie = (await bob.page.context().cookies()).find((c) => c.name === 'meet_wait');
    t.match(
      cookie,
      { domain: '127.0.0.1', sameSite: 'None', secure: true, httpOnly: true, partitionKey: 'http://localhost' },
      'the waiting cookie was stored in the cross-site frame, partitioned under the app’s site',
    );
    // She is waiting: her frame shows the waiting screen, her parent page hears no join.
    await bob.page.waitForTimeout(3000);
    t.equal(await count(bob.page, 'videoConferenceJoined'), 0, 'no videoConferenceJoined while waiting');
    t.match(
      await meetingFrame(bob.page)?.evaluate(() => document.body.innerText),
      /Waiting for a moderator to let you in/,
      'our waiting screen inside the iframe',
    );
    await ann.page.evaluate(
      (id) => (window as any).api.executeCommand('answerKnockingParticipant', id, true),
      knock.participant.id,
    );
    const bobJoined = await waitEvent(bob.page, 'videoConferenceJoined');
    t.equal(
      bobJoined.displayName,
      'Bob',
      'admitted from the parent page: videoConferenceJoined (her poll carried the cookie)',
    );
    t.match(
      await waitEvent(ann.page, 'participantJoined'),
      { id: bobJoined.id, displayName: 'Bob' },
      'Ann sees participantJoined',
    );

    // Chat both ways through the SDK's API object.
    await ann.page.evaluate(() => (window as any).api.executeCommand('sendChatMessage', 'hello from React'));
    t.same(
      await waitEvent(ann.page, 'outgoingMessage'),
      { message: 'hello from React', privateMessage: false },
      'outgoingMessage at Ann',
    );
    t.same(
      await waitEvent(bob.page, 'incomingMessage'),
      { from: annJoined.id, nick: 'Ann', privateMessage: false, message: 'hello from React' },
      'incomingMessage at Bob',
    );

    // toggleAudio, and the accessors.
    await ann.page.evaluate(() => (window as any).api.executeCommand('toggleAudio'));
    t.same(
      await waitEvent(ann.page, 'audioMuteStatusChanged'),
      { muted: true },
      'audioMuteStatusChanged {muted: true}',
    );
    t.equal(await ann.page.evaluate(() => (window as any).api.isAudioMuted()), true, 'isAudioMuted() resolves true');
    t.equal(
      await ann.page.evaluate(() => (window as any).api.getNumberOfParticipants()),
      2,
      'getNumberOfParticipants() resolves 2',
    );
    t.equal(await bob.page.evaluate(() => (window as any).api.getNumberOfParticipants()), 2, 'at Bob too');

    // A reload inside the frame: the address kept ?t=&embed=1, so the page may still be framed.
    const annFrame = meetingFrame(ann.page)!;
    const kept = new URL(annFrame.url());
    t.ok(
      kept.searchParams.get('t') && kept.searchParams.get('embed') === '1',
      'in the meeting, the frame’s address keeps t and embed=1',
    );
    t.match(decodeURIComponent(kept.hash), 'embed.parentOrigin', 'and the fragment naming the parent');
    const before = ann.documents.length;
    await annFrame.evaluate(() => location.reload());
    await until('the reloaded room page', async () => ann.documents.length > before);
    t.match(
      ann.documents.at(-1),
      { status: 200, csp: /frame-ancestors \*/ },
      'the reloaded page is served frameable by the app',
    );
    await waitEvent(ann.page, 'videoConferenceJoined', 2);
    t.pass('after the reload Ann is back in the meeting: videoConferenceJoined again');
    await until(
      'Ann to count two again',
      async () => (await ann.page.evaluate(() => (window as any).api.getNumberOfParticipants())) === 2,
    );
    t.pass('and the reloaded page answers the SDK’s accessors');

    // A rename during the meeting (upstream's command name): the other host page hears displayNameChange.
    await bob.page.evaluate(() => (window as any).api.executeCommand('displayName', 'Bobby'));
    t.same(
      await waitEvent(ann.page, 'displayNameChange'),
      { id: bobJoined.id, displayname: 'Bobby' },
      'displayNameChange at Ann’s SDK page',
    );
    t.same(
      await waitEvent(bob.page, 'displayNameChange'),
      { id: bobJoined.id, displayname: 'Bobby' },
      'and at Bob’s own page, as upstream tells the local one',
    );
    t.equal(
      await ann.page.evaluate((id) => (window as any).api.getDisplayName(id), bobJoined.id),
      'Bobby',
      'getDisplayName answers the new name',
    );
    t.ok(
      (await ann.page.evaluate(() => (window as any).api.getParticipantsInfo())).some(
        (p: any) => p.participantId === bobJoined.id && p.displayName === 'Bobby',
      ),
      'getParticipantsInfo too',
    );
    await meetingFrame(ann.page)!.getByRole('list', { name: 'Participants', exact: true }).getByText('Bobby').waitFor();
    t.pass('Ann’s meeting page lists Bobby');

    // subject: a participant's is refused in her own frame, with a warning; the moderator's reaches both pages, as text.
    await bob.page.evaluate(() => (window as any).api.executeCommand('subject', 'Taken over'));
    await until('the warning in Bob’s frame', async () =>
      bob.consoleLines.some((l) => l.startsWith('subject: only a moderator')),
    );
    t.pass('a participant’s subject: a console warning, nothing sent');
    const subject = '<img src=x onerror="window.__pwned=1">Algebra';
    await ann.page.evaluate((text) => (window as any).api.executeCommand('subject', text), subject);
    t.same(await waitEvent(ann.page, 'subjectChange'), { subject }, 'subjectChange at Ann');
    t.same(await waitEvent(bob.page, 'subjectChange'), { subject }, 'subjectChange at Bob');
    t.equal(await count(bob.page, 'subjectChange'), 1, 'Bob’s refused subject was never told to anyone');
    const bobFrame = meetingFrame(bob.page)!;
    await bobFrame.getByRole('heading', { level: 1, name: subject }).waitFor();
    t.same(
      await bobFrame.evaluate(() => ({
        title: document.title,
        images: document.querySelectorAll('h1 img').length,
        pwned: (window as any).__pwned ?? null,
      })),
      { title: `${subject} – Meeting`, images: 0, pwned: null },
      'the subject is the heading and the page title, drawn as text',
    );

    // toggleLobby: off, a new arrival enters; on again, the next one waits (nobody inside leaves).
    await ann.page.evaluate(() => (window as any).api.executeCommand('toggleLobby', false));
    await meetingFrame(ann.page)!
      .getByRole('switch', { name: 'Waiting room for later arrivals', checked: false })
      .waitFor();
    t.pass('the moderator’s page shows the waiting room off');
    const cy = await open('cy', `${appOrigin}/plain.html`);
    await cy.page.evaluate(
      ([domain, roomName, jwt]) => (window as any).start(domain, { roomName, jwt, userInfo: { displayName: 'Cy' } }),
      [domain, roomName, await mint(appSecret, appId, roomName, 'Cy', false)],
    );
    t.equal(
      (await waitEvent(cy.page, 'videoConferenceJoined')).displayName,
      'Cy',
      'with the waiting room off, Cy enters directly',
    );
    await ann.page.evaluate(() => (window as any).api.executeCommand('toggleLobby', true));
    await meetingFrame(ann.page)!
      .getByRole('switch', { name: 'Waiting room for later arrivals', checked: true })
      .waitFor();
    t.pass('the moderator’s page shows it on again');
    const dan = await open('dan', `${appOrigin}/plain.html`);
    await dan.page.evaluate(
      ([domain, roomName, jwt]) => (window as any).start(domain, { roomName, jwt, userInfo: { displayName: 'Dan' } }),
      [domain, roomName, await mint(appSecret, appId, roomName, 'Dan', false)],
    );
    t.equal(
      (await waitEvent(ann.page, 'knockingParticipant', 2)).participant.name,
      'Dan',
      'after toggleLobby(true), Dan knocks',
    );
    await until('Dan’s page to be ready', async () => (await dan.page.evaluate(() => (window as any).loaded)) === 1);
    t.equal(await count(dan.page, 'videoConferenceJoined'), 0, 'and waits');
    t.equal(
      await ann.page.evaluate(() => (window as any).api.getNumberOfParticipants()),
      3,
      'Ann, Bob and Cy are still in: nobody was pushed out',
    );
    await dan.page.evaluate(() => (window as any).api.executeCommand('hangup'));
    await waitEvent(dan.page, 'readyToClose');
    await cy.page.evaluate(() => (window as any).api.executeCommand('hangup'));
    await waitEvent(cy.page, 'readyToClose');

    // hangup: left, then ready to close (the plain page, then the SDK's onReadyToClose).
    await bob.page.evaluate(() => (window as any).api.executeCommand('hangup'));
    await waitEvent(bob.page, 'readyToClose');
    const tail = (await eventsOf(bob.page)).filter(
      (e) => e.name === 'videoConferenceLeft' || e.name === 'readyToClose',
    );
    t.same(
      tail,
      [
        { name: 'videoConferenceLeft', data: { roomName: roomName.toLowerCase() } },
        { name: 'readyToClose', data: {} },
      ],
      'videoConferenceLeft then readyToClose',
    );
    // The plain page keeps its frame: the way back inside it reloads a page that may still be framed.
    const back = meetingFrame(bob.page)!.getByRole('button', { name: 'Back to the start' });
    await back.waitFor({ timeout: 60_000 });
    const bobBefore = bob.documents.length;
    await back.click();
    await until('Bob’s frame to reload', async () => bob.documents.length > bobBefore);
    t.match(
      bob.documents.at(-1),
      { status: 200, csp: /frame-ancestors \*/ },
      'inside the frame, “Back to the start” reloads the page, still frameable by the app',
    );
    await ann.page.evaluate(() => (window as any).api.executeCommand('hangup'));
    await until(
      'the SDK’s onReadyToClose',
      async () => (await ann.page.evaluate(() => (window as any).readyToCloseCalls)) === 1,
    );
    t.pass('JitsiMeeting’s onReadyToClose was called');

    // Framing: the school tenant lets only the app's origin frame its pages.
    const allowed = await open('allowed', `${appOrigin}/plain.html`);
    await allowed.page.evaluate(
      ([domain, jwt]) => (window as any).start(domain, { roomName: 'school-app/Physics', jwt }),
      [domain, await mint(schoolSecret, schoolAppId, 'Physics', 'Dee', true)],
    );
    t.equal(
      (await waitEvent(allowed.page, 'videoConferenceJoined')).displayName,
      'Dee',
      'from an allowed origin the tenant’s room loads and joins',
    );
    const stranger = await open('stranger', `${strangerOrigin}/plain.html`);
    await stranger.page.evaluate(
      ([domain, jwt]) => (window as any).start(domain, { roomName: 'school-app/Physics', jwt }),
      [domain, await mint(schoolSecret, schoolAppId, 'Physics', 'Eve', true)],
    );
    await until('the room page to be answered', async () => stranger.documents.length > 0);
    t.match(
      stranger.documents[0]!.csp,
      `frame-ancestors 'self' ${appOrigin}`,
      'the page names only the allowed ancestors',
    );
    t.notMatch(stranger.documents[0]!.csp, strangerOrigin, 'not the stranger’s origin');
    // Chromium reports the block once it refused the frame; a second more for anything that would
    // still come of it (a ready, an onload), instead of a fixed 5 s from the start.
    await until(
      'Chromium to report the block',
      async () => stranger.consoleLines.some((l) => /frame-ancestors/.test(l) && /blocked/.test(l)),
      30_000,
    ).catch(() => {});
    await stranger.page.waitForTimeout(1000);
    t.same(await eventsOf(stranger.page), [], 'no ready, no event: the frame never loaded the meeting');
    t.equal(await stranger.page.evaluate(() => (window as any).loaded), 0, 'onload never fired');
    t.ok(
      stranger.consoleLines.some((l) => /frame-ancestors/.test(l) && /blocked/.test(l)),
      `Chromium reports the block (${stranger.consoleLines.filter((l) => /frame/.test(l)).join(' | ')})`,
    );
    t.same(pageErrors, [], 'no page errors on any host page');
  });
}
