// Issue 35 stage 3, adoption: two engines (node-a, node-b) on one PostgreSQL database, each with
// its room ownership over the leases, in this process on one fake clock. node-a serves a room: a
// moderator, one person admitted, two knocks waiting with notes. node-a then dies (its lease
// runs out and it is no longer among the live nodes): node-b claims the room on its next request
// and adopts the open meeting, its members with their roles and its waiting requests, so it
// serves the room as node-a did: the same list in the same order with the notes, a new knock
// accepted (202, not a second meeting refused by the unique index), the moderator's session
// admits a waiting person there, the admitted member's session is still hers.
import type { Test } from 'tap';
import type { RoomOwnership } from '../../../src/engine/cluster/ownership.js';
import { aliveWithinMs } from '../../../src/engine/cluster/nodes.js';
import type { Server } from '../../helpers/api.js';
import { clusterEngine } from '../../helpers/cluster-engines.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { postgresTest } from '../../helpers/postgres.js';
import { postgresStore } from '../../helpers/service-stores.js';
import { asSession, Browser, createRoom, knockAndAdmit, moderator, timeline } from '../../helpers/waiting.js';

interface Item {
  request_id: string;
  name: string;
  note: string;
}

async function twoNodes(t: Test) {
  const store = await postgresStore(t);
  const clock = new FakeClock();
  const alive = new Set(['node-a', 'node-b']);
  const ownerships = new Map<string, RoomOwnership>();
  const node = (nodeId: string) => clusterEngine(t, { store, clock, nodeId, alive: () => [...alive], ownerships });
  const a = await node('node-a');
  const b = await node('node-b');
  // One database, one first admin token: node-a issued it.
  const asAdmin: Server = {
    ...b,
    api: (path, init = {}) => b.api(path, { ...init, token: init.token === undefined ? a.adminToken : init.token }),
  };
  return { a, b: asAdmin, clock, alive, ownerships };
}

const listOn = async (d: Server, roomId: string, session: string) => {
  const list = await asSession.list(d, roomId, session);
  if (list.status !== 200) throw new Error(`waiting-list answered ${list.status}: ${list.text}`);
  return (list.body as Item[]).map((item) => [item.name, item.note]);
};

postgresTest('a dead owner’s meeting and waiting room are adopted by the room’s new owner', async (t) => {
  const { a, b, clock, alive, ownerships } = await twoNodes(t);
  await createRoom(t, a, { room_id: 'class-7a', name: 'Class 7a', waiting_room: 'all' });
  const mod = await moderator(a, 'class-7a', 'Mona');
  t.equal(ownerships.get('node-a')?.epochOf('class-7a'), 1, 'node-a, the room’s successor, serves it');
  const { browser: cyBrowser, session: cy } = await knockAndAdmit(a, 'class-7a', mod, 'Cy');
  const ada = new Browser(a, 'class-7a');
  const bob = new Browser(a, 'class-7a');
  t.equal((await ada.knock({ name: 'Ada', note: 'my camera is broken' })).status, 202);
  t.equal((await bob.knock({ name: 'Bob', note: 'late, sorry' })).status, 202);
  const before = await listOn(a, 'class-7a', mod.session);
  t.same(before, [
    ['Ada', 'my camera is broken'],
    ['Bob', 'late, sorry'],
  ]);
  t.equal((await new Browser(b, 'class-7a').knock({ name: 'Eve' })).status, 421, 'node-b is not the owner yet');

  // node-a dies: it is no longer alive and its lease runs out unrenewed.
  alive.delete('node-a');
  clock.advance(aliveWithinMs + 1);

  // Her page's poll, now through node-b: the same request, still waiting.
  for (const [browser, name] of [
    [ada, 'Ada'],
    [bob, 'Bob'],
  ] as const) {
    const moved = new Browser(b, 'class-7a');
    moved.setCookie(browser.cookie);
    const polled = await moved.poll();
    t.equal(polled.status, 200, `${name}'s poll through node-b`);
    t.equal(polled.body.status, 'waiting', `${name} still waits`);
  }
  t.equal(ownerships.get('node-b')?.epochOf('class-7a'), 2, 'node-b owns the room at the next epoch');
  t.same(await listOn(b, 'class-7a', mod.session), before, "the moderator's session on node-b: the same list");

  const dan = new Browser(b, 'class-7a');
  const knocked = await dan.knock({ name: 'Dan', note: 'new here' });
  t.equal(knocked.status, 202, 'a knock on node-b is accepted');
  const after = (await asSession.list(b, 'class-7a', mod.session)).body as Item[];
  t.same(
    after.map((item) => item.name),
    ['Ada', 'Bob', 'Dan'],
    'behind those who waited before',
  );
  const admitted = await asSession.admit(b, 'class-7a', mod.session, { request_id: after[0]!.request_id });
  t.equal(admitted.status, 200, 'the moderator admits Ada on node-b');
  const adaOnB = new Browser(b, 'class-7a');
  adaOnB.setCookie(ada.cookie);
  const adaPoll = await adaOnB.poll();
  t.equal(adaPoll.body.status, 'admitted', 'her next poll says admitted');
  t.type(adaPoll.body.session, 'string', 'with a session');
  t.same(
    ((await asSession.list(b, 'class-7a', mod.session)).body as Item[]).map((item) => item.name),
    ['Bob', 'Dan'],
  );

  // Cy, admitted on node-a: her poll still hands her session, and her session works on node-b.
  const cyOnB = new Browser(b, 'class-7a');
  cyOnB.setCookie(cyBrowser.cookie);
  t.equal((await cyOnB.poll()).body.status, 'admitted');
  t.equal(
    (await asSession.list(b, 'class-7a', cy.session)).status,
    403,
    'her role is kept too: a participant, not a moderator',
  );
  t.equal((await asSession.leave(b, 'class-7a', cy.session)).status, 204, 'her session leaves on node-b');

  const kinds = (await timeline(b, 'class-7a')).map((entry) => entry.kind);
  t.same(
    kinds.filter((kind) => kind === 'knock').length,
    4,
    'every knock recorded once: Cy, Ada, Bob on node-a, Dan on node-b',
  );
  t.same(kinds.filter((kind) => kind === 'admit').length, 2, 'Cy on node-a, Ada on node-b');
});
