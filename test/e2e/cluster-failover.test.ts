// Issue 35 point 4, in headless Chromium: two (or three) real `meetctl serve` nodes on one
// throwaway PostgreSQL and a test-started nats-server. A moderator (Ada) and a guest admitted
// through the waiting room (Ben) are in a meeting whose room node-a owns, both pages loaded
// through node-b: their HTTP requests are forwarded and their live sockets relayed to node-a.
// node-a dies (`kill -9`), or freezes (SIGSTOP for 8 s, then SIGCONT): node-b closes the relayed
// sockets with 1012, each page reconnects by itself through node-b, which owns the room now (or,
// of three nodes, relays them to node-c, the new owner), and both are back in the meeting with
// their roles, seeing each other, and chat crosses between them.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { call, rooms } from '../helpers/api.js';
import { inLoopbackNamespace, openBrowser, type BrowserSession } from '../helpers/browser.js';
import { startNodes, startTwoNodes } from '../helpers/cluster-nodes.js';
import { apiOf, stopDaemon, type Daemon } from '../helpers/daemon.js';
import { clusterTest } from '../helpers/nats.js';
import { until } from '../helpers/net.js';
import { ownerGoneCode } from '../../src/http/live/relay-wire.js';
import { successorOf } from '../../src/engine/cluster/rendezvous.js';

t.setTimeout(420_000);

/** node-a (the room's owner, killed or frozen) and node-b (every page's node), of the cluster's `ids`. */
interface Cluster {
  readonly a: Daemon;
  readonly b: Daemon;
  readonly ids: readonly string[];
}

async function cluster(t: Test, ids: readonly string[]): Promise<Cluster> {
  if (ids.length === 2) {
    const { a, b } = await startTwoNodes(t);
    return { a, b, ids };
  }
  const { running } = await startNodes(t, ids);
  return { a: running.get('node-a')!, b: running.get('node-b')!, ids };
}

/**
 * A room id whose successor (rendezvous hashing over the live nodes) is node-a, and `heir` once
 * node-a is gone, made through node-a.
 */
async function roomOwnedByA(t: Test, nodes: Cluster, heir: string): Promise<string> {
  const rest = nodes.ids.filter((id) => id !== 'node-a');
  const id = Array.from({ length: 100 }, (_, i) => `lesson-${i + 1}`).find(
    (candidate) => successorOf(candidate, nodes.ids) === 'node-a' && successorOf(candidate, rest) === heir,
  )!;
  const made = await rooms.create(adminOf(nodes).a, { room_id: id, name: 'Lesson', waiting_room: 'all' });
  t.equal(made.status, 201, `room ${id} made`);
  return id;
}

function adminOf(nodes: Cluster) {
  const token = nodes.a.adminToken || nodes.b.adminToken;
  return {
    a: { api: apiOf(nodes.a.url, token), adminToken: token },
    b: { api: apiOf(nodes.b.url, token), adminToken: token },
  };
}

/** Records, before the page's own scripts run, every live socket it opens and the code each closed with. */
async function recordSockets(page: Page): Promise<void> {
  await page.context().addInitScript(() => {
    const seen: { url: string; code: number | null; messages: number }[] = [];
    (window as unknown as { __sockets: typeof seen }).__sockets = seen;
    const WS = window.WebSocket;
    window.WebSocket = class extends WS {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        const entry = { url: String(args[0]), code: null as number | null, messages: 0 };
        seen.push(entry);
        this.addEventListener('message', () => (entry.messages += 1));
        this.addEventListener('close', (event) => (entry.code = event.code));
      }
    };
  });
}

interface SocketSeen {
  readonly url: string;
  readonly code: number | null;
  readonly messages: number;
}

function socketsOf(page: Page): Promise<SocketSeen[]> {
  return page.evaluate(() => (window as unknown as { __sockets: SocketSeen[] }).__sockets);
}

interface Meeting {
  readonly nodes: Cluster;
  /** The node that owns the room once node-a is gone. */
  readonly heir: string;
  readonly roomId: string;
  readonly ada: Page;
  readonly ben: Page;
  readonly browser: BrowserSession;
}

/**
 * Ada (moderator, by link) and Ben (a guest she admits), both through node-b, in a room node-a
 * owns and `heir` will own.
 */
async function meetingThroughB(t: Test, ids: readonly string[], heir: string): Promise<Meeting> {
  const nodes = await cluster(t, ids);
  const roomId = await roomOwnedByA(t, nodes, heir);
  const admin = adminOf(nodes);
  const browser = await openBrowser(t);
  const link = await call(admin.b, `/api/rooms/${roomId}/links`, {
    method: 'POST',
    json: { role: 'moderator', name: 'Ada' },
  });
  t.equal(link.status, 201, 'a moderator link, through node-b');
  const { page: ada } = await browser.newPage('ada');
  await recordSockets(ada);
  await ada.goto(`${nodes.b.url}${link.body.url as string}`);
  await ada.getByRole('button', { name: 'Join' }).click();
  await ada.getByRole('toolbar', { name: 'Meeting controls' }).waitFor();

  const { page: ben } = await browser.newPage('ben');
  await recordSockets(ben);
  await ben.goto(`${nodes.b.url}/room/${roomId}`);
  await ben.getByLabel('Your name').fill('Ben');
  await ben.getByRole('button', { name: 'Join' }).click();
  await ben.locator('#app').getByText('Waiting for a moderator to let you in.').waitFor();
  await ada.getByRole('region', { name: 'Waiting' }).getByRole('button', { name: 'Admit Ben' }).click();
  await ben.getByRole('toolbar', { name: 'Meeting controls' }).waitFor();
  await seeEachOther(t, ada, ben, 'before the failover');
  t.equal((await rooms.get(admin.b, roomId)).body.owner_node, 'node-a', 'node-a owns the room');
  for (const page of [ada, ben]) await page.evaluate(() => ((window as unknown as { kept: number }).kept = 35));
  return { nodes, heir, roomId, ada, ben, browser };
}

/** Each page lists the other among the participants and shows the other's tile; Ada's row says Moderator. */
async function seeEachOther(t: Test, ada: Page, ben: Page, when: string): Promise<void> {
  for (const [page, other] of [
    [ada, 'Ben'],
    [ben, 'Ada'],
  ] as const) {
    await page.getByRole('listitem', { name: other }).waitFor({ timeout: 30_000 });
    const people = page.getByRole('list', { name: 'Participants', exact: true });
    await people.getByRole('listitem').filter({ hasText: other }).waitFor({ timeout: 30_000 });
  }
  const adaAtBen = ben
    .getByRole('list', { name: 'Participants', exact: true })
    .getByRole('listitem')
    .filter({ hasText: 'Ada' });
  t.same(await adaAtBen.locator('.badge').allInnerTexts(), ['Moderator'], `${when}: Ben sees Ada as moderator`);
  const benAtAda = ada
    .getByRole('list', { name: 'Participants', exact: true })
    .getByRole('listitem')
    .filter({ hasText: 'Ben' });
  t.equal(await benAtAda.locator('.badge').count(), 0, `${when}: Ada sees Ben as a participant (no badge)`);
}

/**
 * Both pages are back: each opened a new live socket after the first one closed, and the server
 * spoke on it (its welcome). Read from the sockets rather than from the banner's "Reconnected.",
 * which shows for 4 s only and a starved page may draw after the wait started looking.
 */
async function bothBack(t: Test, m: Meeting, since: number, what: string): Promise<void> {
  const back = async (page: Page) => {
    const sockets = await socketsOf(page);
    const last = sockets.at(-1);
    return sockets.length >= 2 && last !== undefined && last.code === null && last.messages > 0;
  };
  await until(`both pages back after the ${what}`, async () => (await back(m.ada)) && (await back(m.ben)), 60_000, 100);
  t.comment(`both pages back ${Date.now() - since} ms after the ${what}`);
  for (const page of [m.ada, m.ben])
    await page.locator('.connection-banner.lost').waitFor({ state: 'detached', timeout: 30_000 });
  const nodeB = new URL(m.nodes.b.url).host;
  for (const [name, page] of [
    ['Ada', m.ada],
    ['Ben', m.ben],
  ] as const) {
    t.equal(
      await page.evaluate(() => (window as unknown as { kept?: number }).kept),
      35,
      `${name}'s page came back by itself (no reload)`,
    );
    const sockets = await socketsOf(page);
    t.same(
      sockets.map((s) => new URL(s.url).host),
      sockets.map(() => nodeB),
      `${name}'s live sockets all went to node-b`,
    );
    t.equal(sockets[0]?.code, ownerGoneCode, `${name}'s relayed socket closed with the relay's 1012`);
    t.equal(sockets.at(-1)?.code, null, `${name}'s last socket is open`);
    t.comment(`${name}: ${sockets.length} sockets, closed with ${sockets.map((s) => s.code ?? 'open').join(', ')}`);
  }
}

/** After the failover: the roles, each other, and chat both ways. */
async function stillTheMeeting(t: Test, m: Meeting, admin: ReturnType<typeof adminOf>['b']): Promise<void> {
  const { ada, ben } = m;
  await until(
    `${m.heir} to own the room`,
    async () => (await rooms.get(admin, m.roomId)).body.owner_node === m.heir,
    15_000,
    200,
  );
  // The moderator's controls: the waiting room's switch (People panel) and the Moderation panel.
  await ada
    .getByRole('region', { name: 'Waiting' })
    .getByRole('switch', { name: 'Waiting room for later arrivals' })
    .waitFor();
  t.ok(await ada.getByRole('button', { name: 'Moderation' }).isVisible(), 'Ada still has her moderator controls');
  t.equal(await ben.getByRole('button', { name: 'Moderation' }).count(), 0, 'Ben still is a guest: no Moderation');
  t.equal(await ben.getByRole('region', { name: 'Waiting' }).count(), 0, 'nor a waiting list');
  await seeEachOther(t, ada, ben, 'after the failover');

  for (const page of [ada, ben]) {
    const chat = page.getByRole('toolbar', { name: 'Meeting controls' }).getByRole('button', { name: 'Chat' });
    if ((await chat.getAttribute('aria-pressed')) !== 'true') await chat.click();
  }
  await ben.getByRole('textbox', { name: 'Chat message' }).fill('Still here after the failover');
  await ben.getByRole('button', { name: 'Send' }).click();
  await ada.getByRole('log', { name: 'Chat messages' }).getByText('Still here after the failover').waitFor();
  await ada.getByRole('textbox', { name: 'Chat message' }).fill('Welcome back, Ben');
  await ada.getByRole('button', { name: 'Send' }).click();
  const fromAda = ben.getByRole('log', { name: 'Chat messages' }).getByRole('listitem').filter({
    hasText: 'Welcome back, Ben',
  });
  await fromAda.waitFor();
  t.same(await fromAda.locator('.badge').allInnerTexts(), ['Moderator'], "Ada's message carries her badge");
  t.pass('chat sent after the failover reaches the other page, both ways');
}

if (!inLoopbackNamespace(t, import.meta.url)) {
  clusterTest('kill -9 of the owner: both pages back in the meeting through node-b, with their roles', async (t) => {
    const m = await meetingThroughB(t, ['node-a', 'node-b'], 'node-b');
    const killedAt = Date.now();
    t.equal(await stopDaemon(m.nodes.a, 'SIGKILL'), 'SIGKILL', 'node-a killed');
    await bothBack(t, m, killedAt, 'kill -9');
    await stillTheMeeting(t, m, adminOf(m.nodes).b);
  });

  clusterTest(
    'three nodes, kill -9 of the owner: node-b relays both pages again, to node-c, the new owner',
    async (t) => {
      const m = await meetingThroughB(t, ['node-a', 'node-b', 'node-c'], 'node-c');
      const killedAt = Date.now();
      t.equal(await stopDaemon(m.nodes.a, 'SIGKILL'), 'SIGKILL', 'node-a killed');
      await bothBack(t, m, killedAt, 'kill -9 (three nodes)');
      await stillTheMeeting(t, m, adminOf(m.nodes).b);
    },
  );

  clusterTest(
    'SIGSTOP of the owner for 8 s: both pages back through node-b; woken, node-a drops the room',
    async (t) => {
      const m = await meetingThroughB(t, ['node-a', 'node-b'], 'node-b');
      const admin = adminOf(m.nodes);
      const a = m.nodes.a;
      const frozenAt = Date.now();
      a.child.kill('SIGSTOP');
      t.teardown(() => a.child.kill('SIGCONT'));
      await bothBack(t, m, frozenAt, 'SIGSTOP');
      await until('8 s of freeze', async () => Date.now() - frozenAt >= 8000, 15_000, 100);
      a.child.kill('SIGCONT');
      await until(
        'the woken node-a names node-b',
        async () => (await rooms.get(admin.a, m.roomId)).body.owner_node === 'node-b',
        15_000,
        200,
      );
      await stillTheMeeting(t, m, admin.b);
      // The woken node held none of their sockets: its drop of the room touches neither page.
      for (const [name, page] of [
        ['Ada', m.ada],
        ['Ben', m.ben],
      ] as const)
        t.equal((await socketsOf(page)).length, 2, `${name}'s socket through node-b outlived node-a's waking`);
    },
  );
}
