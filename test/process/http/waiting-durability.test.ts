// Issue 3, behaviour 11: every transition is committed before it is acknowledged. Knock, admit
// one, bar one, refuse one, leave one waiting; kill -9; restart on the same data directory.
import t from 'tap';
import { assertError, daemonFor, dataDirFor } from '../../helpers/api.js';
import { stopDaemon } from '../../helpers/daemon.js';
import {
  Browser,
  asSession,
  attendanceRows,
  claimsOf,
  createRoom,
  moderator,
  names,
  waitingApi,
  withAdminToken,
} from '../../helpers/waiting.js';

t.test('waiting-room state survives kill -9 and a restart on the same data directory', async (t) => {
  const dataDir = dataDirFor(t);
  const first = await daemonFor(t, { dataDir });
  const room = 'durable';
  await createRoom(t, first, { room_id: room, name: 'Durable room', waiting_room: 'all' });
  const mod = await moderator(first, room, 'Mo Durable');
  const [ann, bob, cid, dee] = [
    new Browser(first, room),
    new Browser(first, room),
    new Browser(first, room),
    new Browser(first, room),
  ];
  for (const [name, browser] of [
    ['Ann', ann],
    ['Bob', bob],
    ['Cid', cid],
    ['Dee', dee],
  ] as const) {
    t.equal((await browser.knock({ name, note: `${name}'s note` })).status, 202, `${name} knocks`);
  }
  const list = await asSession.list(first, room, mod.session);
  const idOf = Object.fromEntries(
    (list.body as { request_id: string; name: string }[]).map((i) => [i.name, i.request_id]),
  );
  t.same(
    (await asSession.admit(first, room, mod.session, { request_id: idOf.Ann })).body,
    { admitted: 1 },
    'Ann admitted',
  );
  const annPoll = await ann.poll();
  t.match(annPoll.body, { status: 'admitted', session: String });
  const annSession = String(annPoll.body.session);
  t.equal(
    (await asSession.refuse(first, room, mod.session, { request_id: idOf.Bob, bar: true })).status,
    200,
    'Bob barred',
  );
  t.equal(
    (await asSession.refuse(first, room, mod.session, { request_id: idOf.Dee, bar: false })).status,
    200,
    'Dee refused',
  );
  const before = await waitingApi.timeline(first, room);
  t.equal(before.status, 200);
  t.same(
    before.body.entries.map((e: { kind: string }) => e.kind),
    ['moderator_arrived', 'knock', 'knock', 'knock', 'knock', 'admit', 'bar', 'refuse'],
    'the timeline before the kill',
  );
  // Cid is refused, knocks again at once and waits: a replaced request must survive too.
  t.equal(
    (await asSession.refuse(first, room, mod.session, { request_id: idOf.Cid, bar: false })).status,
    200,
    'Cid refused',
  );
  t.equal((await cid.knock({ name: 'Cid', note: 'again' })).status, 202, 'Cid knocks again and waits');
  const timelineBefore = (await waitingApi.timeline(first, room)).body;
  const attendanceBefore = await attendanceRows(first, room);
  t.equal(await stopDaemon(first, 'SIGKILL'), 'SIGKILL', 'the daemon was killed with SIGKILL');

  const second = withAdminToken(await daemonFor(t, { dataDir }), first.adminToken);
  const again = (browser: Browser) => {
    const b = new Browser(second, room);
    b.setCookie(browser.cookie);
    return b;
  };
  const [ann2, bob2, cid2, dee2] = [again(ann), again(bob), again(cid), again(dee)];

  t.same((await cid2.poll()).body, { status: 'waiting' }, "the waiting person's poll still answers waiting");
  t.same((await bob2.poll()).body, { status: 'barred' }, 'the barred one is still barred');
  assertError(t, await bob2.knock({ name: 'Bob' }), 403, 'barred');
  t.same((await dee2.poll()).body, { status: 'refused', retry: true }, 'the refused one is still refused');
  const annAgain = await ann2.poll();
  t.match(annAgain.body, { status: 'admitted', session: String }, 'the admitted one still polls admitted');
  t.equal(claimsOf(annAgain.body.session).participant, claimsOf(annSession).participant, 'as the same participant');

  const modList = await asSession.list(second, room, mod.session);
  t.equal(modList.status, 200, "the moderator's old session still works");
  t.same(names(modList), ['Cid'], 'and lists exactly the one waiting');
  t.match(modList.body, [{ name: 'Cid', note: 'again' }]);
  assertError(t, await asSession.list(second, room, annSession), 403, 'not_moderator');

  const timelineAfter = await waitingApi.timeline(second, room);
  t.equal(timelineAfter.status, 200);
  t.same(timelineAfter.body, timelineBefore, 'the timeline is whole: same meeting, same entries');
  t.same(await attendanceRows(second, room), attendanceBefore, 'the attendance sheet too');

  t.equal(
    (await asSession.leave(second, room, annSession)).status,
    204,
    "the admitted person's session is accepted by leave",
  );
  const cidId = (modList.body as { request_id: string }[])[0]!.request_id;
  t.same(
    (await asSession.admit(second, room, mod.session, { request_id: cidId })).body,
    { admitted: 1 },
    'the moderator can admit after the restart',
  );
  t.match((await cid2.poll()).body, { status: 'admitted', session: String }, 'Cid enters');
  const kinds = (await waitingApi.timeline(second, room)).body.entries.map((e: { kind: string }) => e.kind);
  t.same(kinds.slice(-1), ['admit'], 'the new meeting history continues after the restart');
  t.equal((await waitingApi.timeline(second, room)).body.meeting_id, timelineBefore.meeting_id, 'in the same meeting');
});
