// Issue 14, points 2-5 in real Chromium: a host page on another origin loads external_api.js
// from the compat listener, and its iframe reaches the real room page with embed=1.
//
// The gateway route (/videoconf/{room}?jwt=) is another branch's: here `domain` is the host's
// own small server, whose /videoconf/{room} answers as the gateway does (302 to the page with
// a join token and embed=1, the fragment kept), with a join token the rooms API made standing
// in for the application's JWT. Everything the browser side does is the product's own code.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Page } from 'playwright-core';
import { call, rooms } from '../helpers/api.js';
import { inLoopbackNamespace, openBrowser, type BrowserSession } from '../helpers/browser.js';
import { compatInProcessFor, type CompatServer } from '../helpers/compat.js';
import { freePort, until as untilEvery } from '../helpers/net.js';

const until = (what: string, check: () => Promise<boolean>, ms = 20_000) => untilEvery(what, check, ms, 200);

t.setTimeout(240_000);

type Event = { name: string; data: any };

/** The application's page, plus a gateway stand-in and a foreign page under `localhost`. */
function hostServer(engineUrl: () => string, compatUrl: () => string): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const port = (req.socket.address() as AddressInfo).port;
    if (url.pathname === '/host.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><link rel="icon" href="data:,"></head><body>
<div id="meet"></div>
<script src="${compatUrl()}/external_api.js"></script>
<script>
  window.events = []; window.loaded = 0; window.warnings = [];
  const warn = console.warn; console.warn = (...a) => { window.warnings.push(a.join(' ')); warn(...a); };
  // The pre-join device check is off unless a case asks for the default (prejoin: true).
  window.start = (domain, { prejoin, ...options }) => {
    const configOverwrite = prejoin ? options.configOverwrite : { prejoinConfig: { enabled: false }, ...options.configOverwrite };
    const api = new JitsiMeetExternalAPI(domain, { ...options, configOverwrite, parentNode: document.getElementById('meet'), onload: () => { window.loaded += 1; } });
    for (const name of api.getSupportedEvents()) api.addListener(name, (data) => window.events.push({ name, data }));
    window.api = api;
    return api.getIFrame().src;
  };
</script></body></html>`);
      return;
    }
    const gateway = /^\/videoconf\/([^/]+)$/.exec(url.pathname);
    if (gateway && gateway[1] === 'evil') {
      res.writeHead(302, { location: `http://localhost:${port}/evil.html` }).end();
      return;
    }
    if (gateway) {
      const room = decodeURIComponent(gateway[1]!);
      const location = `${engineUrl()}/room/${encodeURIComponent(room)}?${new URLSearchParams({ t: url.searchParams.get('jwt') ?? '', embed: '1' })}`;
      res.writeHead(302, { location }).end();
      return;
    }
    if (url.pathname === '/evil.html') {
      // Right window, wrong origin: it claims to be ready and to have joined, again and again.
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<script>
  setInterval(() => {
    parent.postMessage({ videomeet: 'v1', kind: 'ready' }, '*');
    parent.postMessage({ videomeet: 'v1', kind: 'event', name: 'videoConferenceJoined', data: { roomName: 'evil' } }, '*');
  }, 100);
</script>`);
      return;
    }
    if (url.pathname === '/sibling.html') {
      // Another origin's frame on the host page: it speaks the envelope to the meeting frame and to the host.
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<script>
  setInterval(() => {
    parent.frames[0].postMessage({ videomeet: 'v1', kind: 'command', name: 'sendChatMessage', args: ['from a stranger'] }, '*');
    parent.postMessage({ videomeet: 'v1', kind: 'event', name: 'participantLeft', data: { id: 'forged' } }, '*');
  }, 100);
</script>`);
      return;
    }
    res.writeHead(404).end();
  });
}

const eventsOf = (page: Page): Promise<Event[]> => page.evaluate(() => (window as any).events as Event[]);
const waitEvent = async (page: Page, name: string, match: (data: any) => boolean = () => true): Promise<any> => {
  let found: Event | undefined;
  await until(`${name} on the host page`, async () => {
    found = (await eventsOf(page)).find((e) => e.name === name && match(e.data));
    return found !== undefined;
  });
  return found!.data;
};

async function link(d: CompatServer, room: string, role: 'moderator' | 'participant', name: string): Promise<string> {
  const made = await call(d, `/api/rooms/${room}/links`, { method: 'POST', json: { role, name } });
  return new URL(made.body.url, d.url).searchParams.get('t')!;
}

if (!inLoopbackNamespace(t, import.meta.url)) {
  t.test('a host page on another origin drives the meeting through external_api.js', async (t) => {
    let engineUrl = '';
    let compatUrl = '';
    const host = hostServer(
      () => engineUrl,
      () => compatUrl,
    );
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => host.close(() => resolve())));
    const hostPort = (host.address() as AddressInfo).port;
    const hostOrigin = `http://127.0.0.1:${hostPort}`;
    const domain = `127.0.0.1:${hostPort}`;
    const enginePort = await freePort();
    const d = await compatInProcessFor(t, {
      SERVICE_HTTP_ADDR: `127.0.0.1:${enginePort}`,
      COMPAT_FRONTEND_URL: `http://127.0.0.1:${enginePort}`,
      COMPAT_API_SHARED_SECRET: 'embed-bridge-test-secret-0123456789abcdef',
      SERVICE_EMBED_ANCESTORS: hostOrigin,
    });
    engineUrl = d.url;
    compatUrl = d.compatUrl;
    await rooms.create(d, { room_id: 'open-room', name: 'Open', waiting_room: 'off' });
    await rooms.create(d, { room_id: 'guarded', name: 'Guarded', waiting_room: 'all' });
    const browser: BrowserSession = await openBrowser(t);
    const pageErrors: string[] = [];
    const hostPage = async (name: string) => {
      const { page } = await browser.newPage(name);
      const consoleLines: string[] = [];
      page.on('console', (m) => consoleLines.push(m.text()));
      await page.goto(`${hostOrigin}/host.html`);
      page.on('pageerror', (err) => pageErrors.push(`${name}: ${String(err)}`));
      return { page, consoleLines };
    };

    // The constructor: both forms, the iframe's attributes and address.
    browser.expectConsoleErrors(
      /^probe: (404|401|403) GET .*\/videoconf\//,
      "the constructor's frames carry made-up tokens and are disposed at once; a frame's request may be answered (refused) first",
    );
    const { page: probe } = await hostPage('probe');
    const built = await probe.evaluate((domain) => {
      const W = window as any;
      const a = new W.JitsiMeetExternalAPI(domain, {
        roomName: 'Team Room',
        jwt: 'a.b.c',
        width: 800,
        height: '60vh',
        lang: 'de',
        userInfo: { displayName: 'Zoë', email: 'z@example.org' },
        configOverwrite: { startWithAudioMuted: true },
      });
      const b = new W.VideoMeetExternalAPI(
        domain,
        'acme/Maths',
        640,
        'nonsense',
        document.getElementById('meet'),
        { prejoinPageEnabled: false },
        {},
        false,
        'x.y.z',
      );
      const frames = [a, b].map((api: any) => {
        const f = api.getIFrame();
        return {
          src: f.src,
          name: f.name,
          id: f.id,
          allow: f.allow,
          width: f.style.width,
          height: f.style.height,
          parent: f.parentElement === document.body ? 'BODY' : f.parentElement?.id,
        };
      });
      a.dispose();
      b.dispose();
      return {
        frames,
        left: document.querySelectorAll('iframe').length,
        same: W.JitsiMeetExternalAPI === W.VideoMeetExternalAPI,
      };
    }, domain);
    const [a, b] = built.frames;
    const srcA = new URL(a!.src);
    t.equal(srcA.origin, hostOrigin, "the script's scheme (http here) and the domain");
    t.equal(srcA.pathname, '/videoconf/Team%20Room', 'the room under /videoconf');
    t.equal(srcA.searchParams.get('jwt'), 'a.b.c', 'the token in the query');
    t.equal(srcA.searchParams.get('lang'), 'de', 'the language');
    const hash = decodeURIComponent(srcA.hash);
    t.match(hash, `embed.parentOrigin="${hostOrigin}"`, 'the parent origin in the fragment');
    t.match(hash, 'userInfo.displayName="Zoë"', 'the display name in the fragment');
    t.match(hash, 'config.startWithAudioMuted=true', 'the config in the fragment');
    t.notMatch(hash, 'a.b.c', 'the token is not in the fragment');
    const granted = `'src' ${hostOrigin} ${new URL(d.url).origin}`;
    t.equal(
      a!.allow,
      ['camera', 'microphone', 'display-capture', 'autoplay', 'clipboard-write', 'fullscreen']
        .map((f) => `${f} ${granted}`)
        .join('; '),
      'the allow list, for the gateway and the page it redirects to',
    );
    t.equal(a!.name, 'jitsiConferenceFrame0', 'named like upstream');
    t.equal(a!.id, 'jitsiConferenceFrame0');
    t.same([a!.width, a!.height, a!.parent], ['800px', '60vh', 'BODY'], 'sizes, and document.body by default');
    t.equal(new URL(b!.src).pathname, '/acme/videoconf/Maths', 'the positional form, with a tenant/room name');
    t.equal(new URL(b!.src).searchParams.get('jwt'), 'x.y.z', 'the positional jwt');
    t.same(
      [b!.name, b!.width, b!.height, b!.parent],
      ['jitsiConferenceFrame1', '640px', '100%', 'meet'],
      'numbers in px, a nonsense size ignored, the given parent',
    );
    t.equal(built.left, 0, 'dispose removes the iframes');
    t.ok(built.same, 'one constructor under both names');
    await probe.close();

    // Ann (moderator) and Bob (participant) join through the script. Ann's app leaves the pre-join
    // screen as it is by default (issue 31 point 11): the device check comes first, and Join enters.
    const ann = await hostPage('ann');
    await ann.page.evaluate(
      ([domain, jwt]) =>
        (window as any).start(domain, { prejoin: true, roomName: 'open-room', jwt, userInfo: { displayName: 'Ann' } }),
      [domain, await link(d, 'open-room', 'moderator', 'Ann')],
    );
    await until('the frame of the room page', async () => ann.page.frame({ url: /\/room\/open-room/ }) !== null);
    const annFrame = ann.page.frame({ url: /\/room\/open-room/ })!;
    await annFrame.getByRole('heading', { name: 'Ready to join?' }).waitFor();
    const annCheck = annFrame.getByRole('region', { name: 'Your devices' });
    for (const name of ['Microphone', 'Camera'])
      t.equal(
        await annCheck.getByRole('switch', { name }).getAttribute('aria-checked'),
        'true',
        `embedded, the device check offers the ${name.toLowerCase()} switch, on`,
      );
    t.notOk(
      (await eventsOf(ann.page)).some((e) => e.name === 'videoConferenceJoined'),
      'no videoConferenceJoined before she pressed Join',
    );
    await browser.checkAccessibility(annFrame, 'the device check inside the frame');
    await annFrame.getByRole('button', { name: 'Join' }).click();
    const annJoined = await waitEvent(ann.page, 'videoConferenceJoined');
    t.equal(
      await ann.page.evaluate(() => (window as any).loaded),
      1,
      'onload fired once, on the page saying it is ready',
    );
    t.match(
      annJoined,
      { roomName: 'open-room', displayName: 'Ann', breakoutRoom: false, avatarURL: '' },
      'videoConferenceJoined',
    );
    t.match(annJoined.id, /\S/, 'with her participant id');
    await browser.checkAccessibility(
      ann.page.frame({ url: /\/room\/open-room/ })!,
      'the embedded meeting page, inside the frame (moderator)',
    );
    const bob = await hostPage('bob');
    await bob.page.evaluate(
      ([domain, jwt]) =>
        (window as any).start(domain, {
          prejoin: true,
          roomName: 'open-room',
          jwt,
          configOverwrite: { prejoinPageEnabled: false },
        }),
      [domain, await link(d, 'open-room', 'participant', 'Bob')],
    );
    // Bob's app turned the pre-join screen off with the older key: he enters at once.
    const bobJoined = await waitEvent(bob.page, 'videoConferenceJoined');
    t.notOk(
      await bob.page
        .frame({ url: /\/room\/open-room/ })!
        .getByRole('heading', { name: 'Ready to join?' })
        .isVisible(),
      'no device check where the embedding app turned it off',
    );
    t.equal(bobJoined.displayName, 'Bob', "without userInfo, the token's name");
    // Issue 33 point 2: Bob, arriving late, hears of Ann (already present) before his own arrival.
    const bobEvents = (await eventsOf(bob.page)).map((e) => e.name);
    t.ok(
      bobEvents.indexOf('participantJoined') >= 0 &&
        bobEvents.indexOf('participantJoined') < bobEvents.indexOf('videoConferenceJoined'),
      'the late joiner: participantJoined before videoConferenceJoined',
    );
    t.match(
      await waitEvent(bob.page, 'participantJoined'),
      { id: annJoined.id, displayName: 'Ann', formattedDisplayName: 'Ann' },
      "for Ann, in the real client's shape",
    );
    await browser.checkAccessibility(
      bob.page.frame({ url: /\/room\/open-room/ })!,
      'the embedded meeting page, inside the frame (participant)',
    );
    t.match(
      await waitEvent(ann.page, 'participantJoined'),
      { id: bobJoined.id, displayName: 'Bob' },
      'Ann sees participantJoined for Bob',
    );
    t.equal(
      await ann.page.evaluate(() => (window as any).api.getNumberOfParticipants()),
      2,
      'getNumberOfParticipants: 2 at Ann',
    );
    t.equal(await bob.page.evaluate(() => (window as any).api.getNumberOfParticipants()), 2, 'and at Bob');
    // Issue 33 point 3: the embedded client's device, layout and chat calls are Bob's own controls.
    const bobFrame = bob.page.frame({ url: /\/room\/open-room/ })!;
    const devicesSeen = await bob.page.evaluate(() => (window as any).api.getAvailableDevices());
    t.ok(
      devicesSeen.audioInput.length > 0 && devicesSeen.videoInput.length > 0,
      'getAvailableDevices lists his devices',
    );
    t.match(await bob.page.evaluate(() => (window as any).api.getCurrentDevices()), {
      audioInput: { kind: 'audioinput' },
      videoInput: { kind: 'videoinput' },
    });
    const pressed = (name: string) => bobFrame.getByRole('button', { name, exact: true }).getAttribute('aria-pressed');
    const gridBefore = await pressed('Grid');
    await bob.page.evaluate(() => (window as any).api.executeCommand('toggleTileView'));
    const tiles = await waitEvent(bob.page, 'tileViewChanged');
    t.equal(String(tiles.enabled), gridBefore === 'true' ? 'false' : 'true', 'toggleTileView: the other layout');
    await until('setTileView(true): the grid', async () => {
      await bob.page.evaluate(() => (window as any).api.executeCommand('setTileView', true));
      return (await pressed('Grid')) === 'true';
    });
    const chatBefore = await pressed('Chat');
    await bob.page.evaluate(() => (window as any).api.executeCommand('toggleChat'));
    await until('toggleChat: the chat panel', async () => (await pressed('Chat')) !== chatBefore);
    // The chat's state as the embedded client tells it; toggleParticipantsPane(true) opens People.
    const chatOpen = chatBefore !== 'true';
    t.match(await waitEvent(bob.page, 'chatUpdated', (d) => d.isOpen === chatOpen), { unreadCount: 0 });
    await bob.page.evaluate(() => (window as any).api.executeCommand('toggleParticipantsPane', true));
    await until('toggleParticipantsPane: People', async () => (await pressed('People')) === 'true');
    t.same(await waitEvent(bob.page, 'participantsPaneToggled', (d) => d.open), { open: true });
    await browser.screenshot(bob.page, 'embed-commands-desktop');
    await bob.page.setViewportSize({ width: 390, height: 844 });
    await browser.screenshot(bob.page, 'embed-commands-phone');
    await bob.page.setViewportSize({ width: 1280, height: 800 });
    t.equal(
      await ann.page.evaluate((id) => (window as any).api.getDisplayName(id), bobJoined.id),
      'Bob',
      'getDisplayName',
    );
    const info = await ann.page.evaluate(() => (window as any).api.getParticipantsInfo());
    t.same(info.map((p: any) => p.displayName).sort(), ['Ann', 'Bob'], 'getParticipantsInfo');
    const roomsInfo = await ann.page.evaluate(() => (window as any).api.getRoomsInfo());
    t.match(
      roomsInfo,
      {
        rooms: [
          {
            isMainRoom: true,
            id: 'open-room',
            participants: [
              { displayName: 'Ann', role: 'moderator' },
              { displayName: 'Bob', role: 'participant' },
            ],
          },
        ],
      },
      'getRoomsInfo: the local person first',
    );

    // Chat both ways.
    await ann.page.evaluate(() => (window as any).api.executeCommand('sendChatMessage', 'hello Bob'));
    t.same(
      await waitEvent(ann.page, 'outgoingMessage'),
      { message: 'hello Bob', privateMessage: false },
      'outgoingMessage at Ann',
    );
    t.same(
      await waitEvent(bob.page, 'incomingMessage'),
      { from: annJoined.id, nick: 'Ann', privateMessage: false, message: 'hello Bob' },
      'incomingMessage at Bob',
    );

    // toggleAudio, and the accessors follow.
    t.equal(await bob.page.evaluate(() => (window as any).api.isAudioMuted()), false, 'isAudioMuted false at first');
    await bob.page.evaluate(() => (window as any).api.executeCommands({ toggleAudio: [] }));
    t.same(
      await waitEvent(bob.page, 'audioMuteStatusChanged'),
      { muted: true },
      'audioMuteStatusChanged {muted: true}',
    );
    t.equal(await bob.page.evaluate(() => (window as any).api.isAudioMuted()), true, 'isAudioMuted resolves true');
    await bob.page.evaluate(() => (window as any).api.executeCommand('toggleVideo'));
    t.same(
      await waitEvent(bob.page, 'videoMuteStatusChanged'),
      { muted: true },
      'videoMuteStatusChanged {muted: true}',
    );
    t.equal(await bob.page.evaluate(() => (window as any).api.isVideoMuted()), true, 'isVideoMuted resolves true');
    t.equal(await bob.page.evaluate(() => (window as any).api.isSharingScreen()), false, 'isSharingScreen false');

    // Unknown commands: a warning, nothing sent (the script) or done (the page, spoken to directly).
    await bob.page.evaluate(() => (window as any).api.executeCommand('selfDestruct', 1));
    t.match(
      await bob.page.evaluate(() => (window as any).warnings),
      [/"selfDestruct" is not a supported command; nothing was sent/],
      'the script warns',
    );
    await bob.page.evaluate(
      (origin) =>
        document
          .querySelector('iframe')!
          .contentWindow!.postMessage({ videomeet: 'v1', kind: 'command', name: 'formatDisk', args: [] }, origin),
      engineUrl,
    );
    await until('the page to warn', async () =>
      bob.consoleLines.some((l) => /"formatDisk" is not a supported command/.test(l)),
    );
    t.pass('the page warns about an unknown command too');

    // Foreign messages: a sibling frame of another origin speaks the envelope to both sides, and
    // the host page posts a forged event to itself. Nothing of it counts.
    await bob.page.evaluate((url) => {
      const f = document.createElement('iframe');
      f.src = url;
      document.body.append(f);
      window.postMessage({ videomeet: 'v1', kind: 'event', name: 'participantLeft', data: { id: 'self-forged' } }, '*');
    }, `http://localhost:${hostPort}/sibling.html`);
    await bob.page.waitForTimeout(2000);
    t.notOk(
      (await eventsOf(bob.page)).some((e) => e.name === 'participantLeft'),
      'forged events reach no listener',
    );
    t.notOk(
      (await eventsOf(ann.page)).some((e) => e.name === 'incomingMessage' && e.data.message === 'from a stranger'),
      "a stranger's command sends no chat",
    );

    // An iframe that ends up on another origin than the service's is not believed.
    const eve = await hostPage('eve');
    await eve.page.evaluate((domain) => (window as any).start(domain, { roomName: 'evil' }), domain);
    await eve.page.waitForTimeout(2000);
    t.equal(
      await eve.page.evaluate(() => (window as any).loaded),
      0,
      'no onload from a foreign origin in our own iframe',
    );
    t.same(await eventsOf(eve.page), [], 'and no events');

    // The waiting room from the moderator's parent page.
    const mo = await hostPage('mo');
    await mo.page.evaluate(
      ([domain, jwt]) => (window as any).start(domain, { roomName: 'guarded', jwt }),
      [domain, await link(d, 'guarded', 'moderator', 'Mo')],
    );
    await waitEvent(mo.page, 'videoConferenceJoined');
    const cy = await hostPage('cy');
    await cy.page.evaluate(
      ([domain, jwt]) => (window as any).start(domain, { roomName: 'guarded', jwt, userInfo: { displayName: 'Cy' } }),
      [domain, await link(d, 'guarded', 'participant', 'Cy')],
    );
    const knock = await waitEvent(mo.page, 'knockingParticipant');
    t.equal(knock.participant.name, 'Cy', 'knockingParticipant to the moderator');
    await until('Cy to be ready', async () => (await cy.page.evaluate(() => (window as any).loaded)) === 1);
    t.notOk(
      (await eventsOf(cy.page)).some((e) => e.name === 'videoConferenceJoined'),
      'a waiting person gets no videoConferenceJoined',
    );
    await mo.page.evaluate(
      (id) => (window as any).api.executeCommand('answerKnockingParticipant', id, true),
      knock.participant.id,
    );
    t.equal((await waitEvent(cy.page, 'videoConferenceJoined')).displayName, 'Cy', 'admitted: videoConferenceJoined');
    t.match(
      await waitEvent(mo.page, 'participantJoined', (data) => data.displayName === 'Cy'),
      { displayName: 'Cy' },
      'and the moderator sees her join',
    );

    // kickParticipant: refused to a participant (nothing is sent), done for the moderator;
    // participantKickedOut on both sides with upstream's payload.
    const cyId = String((await waitEvent(cy.page, 'videoConferenceJoined')).id);
    const moId = String((await waitEvent(mo.page, 'videoConferenceJoined')).id);
    await cy.page.evaluate((id) => (window as any).api.executeCommand('kickParticipant', id), moId);
    await mo.page.evaluate((id) => (window as any).api.executeCommand('kickParticipant', id), cyId);
    t.same(
      await waitEvent(mo.page, 'participantKickedOut'),
      { kicked: { id: cyId, local: false, name: 'Cy' }, kicker: { id: moId, local: true, name: 'Mo' } },
      "the moderator's page: participantKickedOut",
    );
    t.same(
      await waitEvent(cy.page, 'participantKickedOut'),
      { kicked: { id: cyId, local: true, name: 'Cy' }, kicker: { id: moId, local: false, name: 'Mo' } },
      "the removed page's too",
    );
    t.equal(
      (await eventsOf(mo.page)).filter((e) => e.name === 'participantKickedOut').length,
      1,
      "the participant's kick did nothing",
    );
    await waitEvent(cy.page, 'videoConferenceLeft');
    t.notOk(
      (await eventsOf(cy.page)).some((e) => e.name === 'readyToClose'),
      'removed: no readyToClose, her frame offers to ask again',
    );

    // Issue 31 point 10 with upstream's names: toggleRaiseHand and raiseHandUpdated {id, handRaised}
    // (when, or 0); muteRemoteParticipant and endConference only for a moderator.
    await bob.page.evaluate(() => (window as any).api.executeCommand('toggleRaiseHand'));
    const up = await waitEvent(ann.page, 'raiseHandUpdated', (h) => h.id === bobJoined.id && h.handRaised > 0);
    t.ok(Math.abs(up.handRaised - Date.now()) < 60_000, "Ann's page: raiseHandUpdated with when Bob's hand went up");
    await waitEvent(bob.page, 'raiseHandUpdated', (h) => h.id === bobJoined.id && h.handRaised > 0);
    await bob.page.evaluate(() => (window as any).api.executeCommand('toggleRaiseHand'));
    t.same(
      await waitEvent(ann.page, 'raiseHandUpdated', (h) => h.handRaised === 0),
      { id: bobJoined.id, handRaised: 0 },
      'lowered again: handRaised 0',
    );
    await bob.page.evaluate(() => (window as any).api.executeCommand('toggleAudio'));
    await waitEvent(bob.page, 'audioMuteStatusChanged', (m) => m.muted === false);
    await bob.page.evaluate(
      (id) => (window as any).api.executeCommand('muteRemoteParticipant', id, 'audio'),
      annJoined.id,
    );
    await bob.page.evaluate(() => (window as any).api.executeCommand('endConference'));
    await until('the page to refuse the participant', async () =>
      ['muteRemoteParticipant: only a moderator', 'endConference: only a moderator'].every((w) =>
        bob.consoleLines.some((l) => l.includes(w)),
      ),
    );
    await ann.page.evaluate((id) => (window as any).api.executeCommand('muteRemoteParticipant', id), bobJoined.id);
    await until(
      'Bob muted by Ann',
      async () =>
        (await eventsOf(bob.page)).filter((e) => e.name === 'audioMuteStatusChanged' && e.data.muted).length === 2,
    );
    t.pass("Ann's muteRemoteParticipant turns Bob's microphone off (audioMuteStatusChanged {muted: true})");
    t.notOk(
      (await eventsOf(ann.page)).some((e) => e.name === 'audioMuteStatusChanged' || e.name === 'videoConferenceLeft'),
      "Bob's refused commands muted nobody and ended nothing",
    );

    // hangup: left, then ready to close.
    await bob.page.evaluate(() => (window as any).api.executeCommand('hangup'));
    await waitEvent(bob.page, 'readyToClose');
    const tail = (await eventsOf(bob.page)).filter(
      (e) => e.name === 'videoConferenceLeft' || e.name === 'readyToClose',
    );
    t.same(
      tail,
      [
        { name: 'videoConferenceLeft', data: { roomName: 'open-room' } },
        { name: 'readyToClose', data: {} },
      ],
      'videoConferenceLeft then readyToClose',
    );
    t.same(await waitEvent(ann.page, 'participantLeft'), { id: bobJoined.id }, 'Ann sees participantLeft');
    t.equal(await ann.page.evaluate(() => (window as any).api.getNumberOfParticipants()), 1, 'one left');

    // endConference from the moderator: the meeting ends for everyone, her page says left, then ready to close.
    await ann.page.evaluate(() => (window as any).api.executeCommand('endConference'));
    await waitEvent(ann.page, 'readyToClose');
    t.same(
      (await eventsOf(ann.page)).filter((e) => e.name === 'videoConferenceLeft' || e.name === 'readyToClose'),
      [
        { name: 'videoConferenceLeft', data: { roomName: 'open-room' } },
        { name: 'readyToClose', data: {} },
      ],
      'endConference: videoConferenceLeft then readyToClose',
    );
    const entries = (await call(d, '/api/rooms/open-room/timeline')).body.entries as { kind: string; actor: any }[];
    t.match(
      entries.at(-1),
      { kind: 'meeting_ended', actor: { name: 'Ann' } },
      'the meeting ended on the server, by Ann',
    );

    // dispose: the iframe goes, and with it the listeners.
    const disposed = await ann.page.evaluate(() => {
      const api = (window as any).api;
      api.dispose();
      return { frames: document.querySelectorAll('iframe').length, listeners: api.listenerCount('participantLeft') };
    });
    t.same(disposed, { frames: 0, listeners: 0 }, 'dispose removes the iframe and the listeners');
    t.same(pageErrors, [], 'no page errors on any host page');
  });
}
