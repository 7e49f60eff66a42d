// Issue 3, behaviour 5-7 and 10 against the engine built in-process, under a fake clock: refuse
// and bar, closed windows and explicit leaves, the timeline and the attendance sheet, and the
// rooms-API gestures. The timeout is waiting-expiry.test.ts and the engine's transitions test;
// that the daemon's own sweep timer closes a silent request is waiting-closed-window.test.ts.
// Each test runs on both stores, SQLite and PostgreSQL (issue 34 point 5: service-stores.ts).
import { assertError, type Server, type Tap } from '../../helpers/api.js';
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { appFor, type InProcess } from '../../helpers/app.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import {
  Browser,
  asSession,
  attendanceRows,
  claimsOf,
  createRoom,
  moderator,
  names,
  timeline,
  waitingApi,
} from '../../helpers/waiting.js';

async function knocked(t: Tap, browser: Browser, name: string, note?: string): Promise<void> {
  const result = await browser.knock({ name, ...(note === undefined ? {} : { note }) });
  t.equal(result.status, 202, `${name} knocks: 202 (${result.text.slice(0, 80)})`);
}

/** The request id of `name` in the admin's view of the waiting list. */
async function requestIdOf(d: Server, roomId: string, name: string): Promise<string> {
  const list = await waitingApi.list(d, roomId);
  const item = (list.body as { request_id: string; name: string }[]).find((i) => i.name === name);
  if (!item) throw new Error(`${name} is not waiting in ${roomId}: ${list.text}`);
  return item.request_id;
}

onEachServiceStore('waiting-room gestures under the default policy', async (t, store) => {
  const clock = new FakeClock();
  const d: InProcess = await appFor(t, { clock, store });
  /** Time passes, in half-second steps; the daemon's one-second sweep has run meanwhile. */
  const sleep = async (ms: number) => {
    for (let done = 0; done < ms; done += 500) {
      clock.advance(Math.min(500, ms - done));
      await d.services.waiting.sweep();
    }
    await Promise.resolve();
  };
  const now = () => clock.now().getTime();

  t.test('refuse: refused with retry, may knock again, listed as Refused', async (t) => {
    const room = 'refuse';
    await createRoom(t, d, { room_id: room, name: 'Refuse room', waiting_room: 'all' });
    const mod = await moderator(d, room);
    const ann = new Browser(d, room);
    await knocked(t, ann, 'Ann Refused');
    const firstCookie = ann.cookie;
    const id = await requestIdOf(d, room, 'Ann Refused');
    const refused = await asSession.refuse(d, room, mod.session, { request_id: id, bar: false });
    t.equal(refused.status, 200);
    t.same(refused.body, { refused: true, barred: false });
    const polled = await ann.poll();
    t.equal(polled.status, 200);
    t.same(polled.body, { status: 'refused', retry: true }, 'the poll says refused, retry');
    t.same((await ann.poll()).body, { status: 'refused', retry: true }, 'and keeps saying it');
    t.same((await asSession.list(d, room, mod.session)).body, [], 'she left the list');
    assertError(
      t,
      await asSession.refuse(d, room, mod.session, { request_id: id, bar: true }),
      409,
      'request_not_waiting',
    );
    assertError(t, await asSession.admit(d, room, mod.session, { request_id: id }), 409, 'request_not_waiting');

    const again = await ann.knock({ name: 'Ann Refused', note: 'please' });
    t.equal(again.status, 202, 'she may knock again');
    t.same(again.body, { status: 'waiting' });
    t.not(ann.cookie, firstCookie, 'the new request has a new cookie');
    t.same((await ann.poll()).body, { status: 'waiting' }, 'and waits again');
    const list = await asSession.list(d, room, mod.session);
    t.match(list.body, [{ name: 'Ann Refused', note: 'please' }]);
    t.not(list.body[0].request_id, id, 'as a new request');

    const rows = await attendanceRows(d, room);
    t.same(rows[0], ['name', 'role', 'status', 'joined_at', 'left_at', 'refused_at'], 'CSV header');
    t.match(rows.at(-1), ['Ann Refused', '', 'Refused', '', '', /^\d{4}-\d\d-\d\dT/], 'the bottom row is her refusal');
    t.match(rows[1], ['Moderator Mallory', 'moderator', 'Attended'], 'the moderator attended');
  });

  t.test('refuse and bar: barred on poll, on a new knock, on start, after a reload', async (t) => {
    const room = 'bar';
    await createRoom(t, d, { room_id: room, name: 'Bar room', waiting_room: 'guests' });
    const mod = await moderator(d, room);
    const bob = new Browser(d, room);
    await knocked(t, bob, 'Bob Barred');
    const barred = await asSession.refuse(d, room, mod.session, {
      request_id: await requestIdOf(d, room, 'Bob Barred'),
      bar: true,
    });
    t.equal(barred.status, 200);
    t.same(barred.body, { refused: true, barred: true });
    t.same((await bob.poll()).body, { status: 'barred' }, 'the poll says barred, without retry');
    assertError(t, await bob.knock({ name: 'Bob Again' }), 403, 'barred');
    assertError(t, await bob.start({ name: 'Bob Again' }), 403, 'barred');
    t.ok(bob.cookie, 'the barred browser keeps its cookie');

    const reloaded = new Browser(d, room);
    reloaded.setCookie(bob.cookie);
    t.same((await reloaded.poll()).body, { status: 'barred' }, 'a reload (same cookie) polls barred');
    assertError(t, await reloaded.knock({ name: 'Robert' }), 403, 'barred');
    t.same((await asSession.list(d, room, mod.session)).body, [], 'nothing reached the moderator');
    t.notOk(
      (await timeline(d, room)).some((e) => e.kind === 'knock' && e.subject?.name !== 'Bob Barred'),
      'no new knock was recorded',
    );

    // The waiting page beacons a leave when it is closed; that must not undo the bar.
    t.equal((await bob.beacon()).status, 204, 'the page beacons its leave');
    const afterBeacon = await bob.poll();
    t.same(afterBeacon.body, { status: 'barred' }, 'still barred after the page beaconed its leave (cookie kept)');
    const retry = await bob.knock({ name: 'Bob After Beacon' });
    t.equal(retry.status, 403, 'knocking again after the beacon is still refused as barred');
  });

  t.test('a closed window frees its slot; an explicit leave at once', async (t) => {
    const room = 'window';
    await createRoom(t, d, { room_id: room, name: 'Window room', waiting_room: 'all' });
    const mod = await moderator(d, room);
    const [gone, staying] = [new Browser(d, room), new Browser(d, room)];
    const start = now();
    await knocked(t, gone, 'Gone Gina');
    await knocked(t, staying, 'Staying Stan');
    t.same(names(await asSession.list(d, room, mod.session)), ['Gone Gina', 'Staying Stan'], 'both listed at first');

    let removedAfter: number | null = null;
    let checkedEarly = false;
    let lastStanPoll = now();
    // The grace of a silent page is 60 s (issue 31 point 3): not before, and soon after.
    while (now() - start < 70_000) {
      await sleep(500);
      if (now() - lastStanPoll >= 2000) {
        lastStanPoll = now();
        t.same((await staying.poll()).body, { status: 'waiting' }, 'Stan keeps polling and waits');
      }
      const list = names(await asSession.list(d, room, mod.session));
      const elapsed = now() - start;
      if (!checkedEarly && elapsed >= 2000 && elapsed < 4000) {
        checkedEarly = true;
        t.ok(list.includes('Gone Gina'), `a request missing only one poll is still listed (${elapsed} ms)`);
      }
      if (!list.includes('Gone Gina')) {
        removedAfter = elapsed;
        t.ok(list.includes('Staying Stan'), 'the polling request is still listed');
        break;
      }
    }
    t.ok(
      removedAfter !== null && removedAfter >= 60_000 && removedAfter <= 61_000,
      `the closed window left the list once the 60 s grace ran out (after ${removedAfter} ms)`,
    );
    assertError(t, await gone.poll(), 404, 'not_found');
    t.match(
      (await timeline(d, room)).find((e) => e.kind === 'window_closed'),
      { actor: null, subject: { name: 'Gone Gina' } },
      'recorded as window_closed',
    );

    // Explicit leaves: DELETE and the sendBeacon POST.
    const [cid, dee] = [new Browser(d, room), new Browser(d, room)];
    await knocked(t, cid, 'Cid Deletes');
    await knocked(t, dee, 'Dee Beacons');
    t.same(names(await asSession.list(d, room, mod.session)), ['Staying Stan', 'Cid Deletes', 'Dee Beacons']);
    const deleted = await cid.withdraw();
    t.equal(deleted.status, 204, 'DELETE /room/{id}/waiting: 204');
    t.equal(deleted.text, '', 'with no body');
    assertError(t, await cid.poll(), 404, 'not_found');
    t.same(
      names(await asSession.list(d, room, mod.session)),
      ['Staying Stan', 'Dee Beacons'],
      'Cid left the list at once',
    );
    const beaconed = await dee.beacon();
    t.equal(beaconed.status, 204, 'POST /room/{id}/waiting/leave: 204');
    t.same(names(await asSession.list(d, room, mod.session)), ['Staying Stan'], 'Dee left the list at once');
    // The beacon leaves 2 s for a reload to poll again; without one, the request is withdrawn.
    await sleep(3500);
    await staying.poll();
    assertError(t, await dee.poll(), 404, 'not_found');
    const withdrawn = (await timeline(d, room)).filter((e) => e.kind === 'withdraw').map((e) => e.subject?.name);
    t.same(withdrawn, ['Cid Deletes', 'Dee Beacons'], 'both recorded as withdraw');

    // A reload: the beacon, then the same browser polls again at once and keeps its place.
    const eve = new Browser(d, room);
    await knocked(t, eve, 'Eve Reloads');
    await eve.beacon();
    t.same((await eve.poll()).body, { status: 'waiting' }, 'the reloaded page still waits');
    await sleep(3500);
    await staying.poll();
    t.same((await eve.poll()).body, { status: 'waiting' }, 'and is not withdrawn after the grace');
    t.same(
      names(await asSession.list(d, room, mod.session)),
      ['Staying Stan', 'Eve Reloads'],
      'in her place in the list',
    );
    t.equal((await new Browser(d, room).withdraw()).status, 204, 'a leave without a cookie is harmless');
  });

  t.test('the timeline and the attendance sheet of a meeting', async (t) => {
    const room = 'records';
    await createRoom(t, d, { room_id: room, name: 'Records room', waiting_room: 'all' });
    const mod = await moderator(d, room, 'Mo Moderator');
    const people = ['Ann', 'Bob', 'Cid', 'Dee', 'Fay'];
    const browsers = Object.fromEntries(people.map((name) => [name, new Browser(d, room)]));
    for (const name of people) await knocked(t, browsers[name]!, name);
    const list = await asSession.list(d, room, mod.session);
    const idOf = Object.fromEntries(
      (list.body as { request_id: string; name: string }[]).map((i) => [i.name, i.request_id]),
    );

    t.same((await asSession.admit(d, room, mod.session, { request_id: idOf.Ann })).body, { admitted: 1 });
    const annSession = (await browsers.Ann!.poll()).body.session as string;
    t.same((await asSession.refuse(d, room, mod.session, { request_id: idOf.Bob, bar: false })).status, 200);
    t.same((await asSession.refuse(d, room, mod.session, { request_id: idOf.Cid, bar: true })).status, 200);
    t.equal((await browsers.Dee!.withdraw()).status, 204);
    t.same((await asSession.disable(d, room, mod.session)).body, { admitted: 1 }, 'disable admits Fay');
    const eve = await new Browser(d, room).start({ name: 'Eve' });
    t.equal(eve.body?.status, 'joined', 'Eve enters directly afterwards');

    const entries = await timeline(d, room);
    t.same(
      entries.map((e) => e.kind),
      [
        'moderator_arrived',
        'knock',
        'knock',
        'knock',
        'knock',
        'knock',
        'admit',
        'refuse',
        'bar',
        'withdraw',
        'waiting_room_disabled',
        'admit_all',
      ],
      'every transition, in order',
    );
    const byMo = { kind: 'participant', participant_id: mod.participantId, name: 'Mo Moderator' };
    t.match(entries, [
      { kind: 'moderator_arrived', actor: null, subject: { participant_id: mod.participantId, name: 'Mo Moderator' } },
      { kind: 'knock', actor: null, subject: { request_id: idOf.Ann, name: 'Ann' } },
      { kind: 'knock', subject: { name: 'Bob' } },
      { kind: 'knock', subject: { name: 'Cid' } },
      { kind: 'knock', subject: { name: 'Dee' } },
      { kind: 'knock', subject: { name: 'Fay' } },
      {
        kind: 'admit',
        actor: byMo,
        subject: { request_id: idOf.Ann, participant_id: claimsOf(annSession).participant, name: 'Ann' },
      },
      { kind: 'refuse', actor: byMo, subject: { request_id: idOf.Bob, name: 'Bob' } },
      { kind: 'bar', actor: byMo, subject: { request_id: idOf.Cid, name: 'Cid' } },
      { kind: 'withdraw', actor: null, subject: { request_id: idOf.Dee, name: 'Dee' } },
      { kind: 'waiting_room_disabled', actor: byMo, subject: null },
      { kind: 'admit_all', actor: byMo, count: 1 },
    ]);
    const times = entries.map((e) => Date.parse(e.at));
    t.ok(
      times.every((at, i) => Number.isFinite(at) && (i === 0 || at >= times[i - 1]!)),
      'timestamps are in order',
    );
    const meetingId = (await waitingApi.timeline(d, room)).body.meeting_id;
    t.match(meetingId, /\S/, 'the timeline names its meeting');

    const rows = await attendanceRows(d, room);
    t.same(rows[0], ['name', 'role', 'status', 'joined_at', 'left_at', 'refused_at']);
    t.same(
      rows.slice(1).map((r) => [r[0], r[1], r[2]]),
      [
        ['Mo Moderator', 'moderator', 'Attended'],
        ['Ann', 'participant', 'Attended'],
        ['Fay', 'participant', 'Attended'],
        ['Eve', 'participant', 'Attended'],
        ['Bob', '', 'Refused'],
        ['Cid', '', 'Refused'],
      ],
      'participants in join order, then the refused at the bottom; Dee, never admitted, nowhere',
    );
    for (const row of rows.slice(1, 5)) t.match(row[3], /^\d{4}-\d\d-\d\dT/, `${row[0]} has a join time`);
    for (const row of rows.slice(5)) t.match(row[5], /^\d{4}-\d\d-\d\dT/, `${row[0]} has a refusal time`);
    const csv = await waitingApi.attendance(d, room);
    t.match(csv.headers.get('content-type'), /^text\/csv/);
    t.notOk(csv.text.includes('Dee'), 'the withdrawn person is not in the sheet');
    t.same((await waitingApi.attendance(d, room, null)).status, 401, 'the sheet needs the rooms-API token');
  });

  t.test('the rooms-API gestures: admin token required, the token name recorded', async (t) => {
    const room = 'api-gestures';
    await createRoom(t, d, { room_id: room, name: 'API room', waiting_room: 'all' });
    t.same((await waitingApi.list(d, room)).body, [], 'no meeting yet: an empty list');
    assertError(t, await waitingApi.list(d, 'no-such-room'), 404, 'room_not_found');
    assertError(t, await waitingApi.disable(d, room), 404, 'meeting_not_found');
    const browsers = Object.fromEntries(['Ann', 'Bob', 'Cid', 'Dee', 'Eve'].map((n) => [n, new Browser(d, room)]));
    for (const name of ['Ann', 'Bob', 'Cid', 'Dee']) await knocked(t, browsers[name]!, name);

    assertError(t, await waitingApi.list(d, room, null), 401, 'unauthorized');
    assertError(t, await waitingApi.list(d, room, 'mt_wrong-token'), 401, 'unauthorized');
    const list = await waitingApi.list(d, room);
    t.equal(list.status, 200);
    t.same(names(list), ['Ann', 'Bob', 'Cid', 'Dee']);
    const idOf = Object.fromEntries(
      (list.body as { request_id: string; name: string }[]).map((i) => [i.name, i.request_id]),
    );

    assertError(t, await waitingApi.admit(d, room, idOf.Ann!, null), 401, 'unauthorized');
    assertError(t, await waitingApi.refuse(d, room, idOf.Bob!, false, null), 401, 'unauthorized');
    assertError(t, await waitingApi.refuse(d, room, idOf.Cid!, true, null), 401, 'unauthorized');
    assertError(t, await waitingApi.admitAll(d, room, null), 401, 'unauthorized');
    assertError(t, await waitingApi.disable(d, room, null), 401, 'unauthorized');
    assertError(t, await waitingApi.timeline(d, room, null), 401, 'unauthorized');
    for (const name of ['Ann', 'Bob', 'Cid', 'Dee'])
      t.same((await browsers[name]!.poll()).body, { status: 'waiting' }, `${name} still waits after the 401s`);

    const admitted = await waitingApi.admit(d, room, idOf.Ann!);
    t.equal(admitted.status, 200);
    t.same(admitted.body, { admitted: 1 });
    t.match((await browsers.Ann!.poll()).body, { status: 'admitted', session: String });
    const refused = await waitingApi.refuse(d, room, idOf.Bob!, false);
    t.same([refused.status, refused.body], [200, { refused: true, barred: false }]);
    t.same((await browsers.Bob!.poll()).body, { status: 'refused', retry: true });
    const barred = await waitingApi.refuse(d, room, idOf.Cid!, true);
    t.same([barred.status, barred.body], [200, { refused: true, barred: true }]);
    t.same((await browsers.Cid!.poll()).body, { status: 'barred' });
    assertError(t, await waitingApi.refuse(d, room, idOf.Ann!, true), 409, 'request_not_waiting');
    assertError(t, await waitingApi.admit(d, room, 'no-such-request'), 404, 'request_not_found');
    const all = await waitingApi.admitAll(d, room);
    t.same([all.status, all.body], [200, { admitted: 1 }], 'admit-all lets Dee in');
    t.match((await browsers.Dee!.poll()).body, { status: 'admitted' });

    await knocked(t, browsers.Eve!, 'Eve');
    const disabled = await waitingApi.disable(d, room);
    t.same([disabled.status, disabled.body], [200, { admitted: 1 }], 'disable lets Eve in');
    t.match((await browsers.Eve!.poll()).body, { status: 'admitted' });
    t.equal(
      (await new Browser(d, room).knock({ name: 'Fay' })).body?.status,
      'joined',
      'later arrivals enter directly',
    );

    const api = { kind: 'api', participant_id: null, name: 'initial-admin' };
    const decided = (await timeline(d, room)).filter((e) => e.kind !== 'knock');
    t.match(
      decided,
      [
        { kind: 'admit', actor: api, subject: { name: 'Ann' } },
        { kind: 'refuse', actor: api, subject: { name: 'Bob' } },
        { kind: 'bar', actor: api, subject: { name: 'Cid' } },
        { kind: 'admit_all', actor: api, count: 1 },
        { kind: 'waiting_room_disabled', actor: api },
        { kind: 'admit_all', actor: api, count: 1 },
      ],
      'each gesture recorded with the token name initial-admin',
    );
    t.equal(decided.length, 6);
  });
});
