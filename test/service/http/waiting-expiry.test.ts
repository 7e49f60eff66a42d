// The waiting room's timeout at the HTTP addresses, under a fake clock: the engine listener built
// in-process on each store (SQLite's file, then PostgreSQL: issue 34 point 5), time moved by the test (the engine's own rule, to the
// millisecond, is test/unit/engine/waiting/transitions.test.ts). It replaces a 31 s real-time loop
// against the spawned daemon; the daemon's own sweep timer is proven by the closed-window tests.
import { onEachServiceStore } from '../../helpers/service-stores.js';
import { appFor } from '../../helpers/app.js';
import { FakeClock } from '../../helpers/fake-clock.js';

onEachServiceStore(
  'a request polled every 2 s waits until waiting_room_timeout_secs, then expires; she may knock again',
  async (t, store) => {
    const clock = new FakeClock();
    const { app, services } = await appFor(t, { clock, store });
    const admin = { authorization: `Bearer ${(await services.accessTokens.create('test')).token}` };
    const created = await app.inject({
      method: 'POST',
      url: '/api/rooms',
      headers: admin,
      payload: { room_id: 'timeout', name: 'Timeout room', waiting_room: 'all', waiting_room_timeout_secs: 30 },
    });
    t.equal(created.statusCode, 201, `the room is made (${created.body})`);

    const knock = async () =>
      app.inject({ method: 'POST', url: '/room/timeout/knock', payload: { name: 'Ann Timeout' } });
    const knocked = await knock();
    t.equal(knocked.statusCode, 202, `Ann knocks (${knocked.body})`);
    const cookie = knocked.cookies.find((c) => c.name === 'meet_wait');
    t.ok(cookie, 'the knock sets the waiting cookie');
    const poll = async () =>
      app.inject({ method: 'GET', url: '/room/timeout/waiting', cookies: { meet_wait: cookie!.value } });
    const listed = async () =>
      (await app.inject({ url: '/api/rooms/timeout/waiting', headers: admin }))
        .json<{ name: string }[]>()
        .map((i) => i.name);

    const seen: string[] = [];
    for (let elapsed = 2000; elapsed < 30_000; elapsed += 2000) {
      clock.advance(2000);
      await services.waiting.sweep(); // the daemon sweeps every second
      seen.push((await poll()).json<{ status: string }>().status);
    }
    t.same(new Set(seen), new Set(['waiting']), `waiting at every poll up to 28 s (${seen.length} polls)`);
    t.same(await listed(), ['Ann Timeout'], 'and on the moderators’ list');
    clock.advance(2000); // 30 s after the knock
    await services.waiting.sweep();
    t.same(await listed(), [], 'at 30 s the sweep took her off the list');
    const expired = await poll();
    t.equal(expired.statusCode, 200);
    t.same(expired.json(), { status: 'expired', retry: true }, 'her poll says expired, retry');
    const entries = (await app.inject({ url: '/api/rooms/timeout/timeline', headers: admin })).json<{
      entries: unknown[];
    }>().entries;
    t.match(
      entries.at(-1),
      { kind: 'expire', actor: null, subject: { name: 'Ann Timeout' } },
      'the expiry is recorded, decided by nobody',
    );
    t.equal((await knock()).statusCode, 202, 'she may knock again');
  },
);
