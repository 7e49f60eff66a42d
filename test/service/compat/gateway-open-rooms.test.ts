// Issue 28 point 9 against the daemon (in this process: real sockets, its own sweep, on SQLite and
// once more on PostgreSQL: issue 34 point 5, service-stores.ts):
// with open rooms on, one client cannot make thousands of durable rooms by asking for new names
// (COMPAT_JITSI_OPEN_ROOMS_PER_CLIENT in 10 minutes, then 429 with Retry-After), and a room made
// by an arrival without a token is deleted once unused (COMPAT_JITSI_OPEN_ROOM_IDLE_SECS).
import type { Tap } from '../../helpers/api.js';
import { compatInProcessFor, roomAndToken, type CompatServer } from '../../helpers/compat.js';
import { claims, mainAppId, mainSecret, mint } from '../../helpers/gateway.js';
import { connectLive } from '../../helpers/live.js';
import { onEachServiceStore, type ServiceStore } from '../../helpers/service-stores.js';
import { admittedSession, Browser } from '../../helpers/waiting.js';

const frontend = 'http://frontend.test';

interface Entry {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly roomId: string;
  readonly token: string;
}

/** GET /videoconf/{room} as the client `from` (the trusted proxy's X-Forwarded-For), optionally with the app's token. */
async function enter(daemon: CompatServer, room: string, from: string, jwt?: string): Promise<Entry> {
  const query = new URLSearchParams(jwt ? { jwt } : { displayName: 'Walk In' });
  const response = await fetch(`${daemon.compatUrl}/videoconf/${encodeURIComponent(room)}?${query}`, {
    redirect: 'manual',
    headers: { 'x-forwarded-for': from },
    signal: AbortSignal.timeout(10_000),
  });
  const location = response.headers.get('location');
  return {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
    ...(location ? roomAndToken(location) : { roomId: '', token: '' }),
  };
}

async function exists(daemon: CompatServer, roomId: string): Promise<boolean> {
  const response = await daemon.api(`/api/rooms/${encodeURIComponent(roomId)}`);
  await response.arrayBuffer();
  if (response.status !== 200 && response.status !== 404)
    throw new Error(`GET /api/rooms/${roomId}: ${response.status}`);
  return response.status === 200;
}

async function flood(
  t: Tap,
  daemon: CompatServer,
  count: number,
  from: (i: number) => string,
  prefix: string,
): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) entries.push(await enter(daemon, `${prefix}-${i}`, from(i)));
  t.same(
    entries.map((e) => e.status),
    Array<number>(count).fill(302),
    `${count} new rooms from one client are made`,
  );
  return entries;
}

function tooMany(t: Tap, entry: Entry, what: string): void {
  t.equal(entry.status, 429, `${what}: 429`);
  t.match(entry.headers.get('content-type'), /^text\/html/, `${what}: the refusal page`);
  t.match(entry.text, /Too many new meeting rooms were opened from your network/, `${what}: says why`);
  const retryAfter = Number(entry.headers.get('retry-after'));
  t.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600,
    `${what}: Retry-After within the 10-minute window (${entry.headers.get('retry-after')})`,
  );
}

/** The daemon with open rooms on (arrivals without a token make rooms) and the main application, on `store`. */
function openRoomsDaemon(t: Tap, store: ServiceStore, settings: Record<string, string>): Promise<CompatServer> {
  return compatInProcessFor(t, {
    ...store.env,
    COMPAT_JITSI_ALLOW_ANONYMOUS: 'true',
    COMPAT_JITSI_APP_ID: mainAppId,
    COMPAT_JITSI_APP_SECRET: mainSecret,
    COMPAT_FRONTEND_URL: frontend,
    ...settings,
  });
}

onEachServiceStore(
  'one client makes at most COMPAT_JITSI_OPEN_ROOMS_PER_CLIENT new open rooms in 10 minutes',
  async (t, store) => {
    const daemon = await openRoomsDaemon(t, store, { COMPAT_JITSI_OPEN_ROOMS_PER_CLIENT: '20' });
    const made = await flood(t, daemon, 20, () => '198.51.100.30', 'flood');
    tooMany(t, await enter(daemon, 'flood-20', '198.51.100.30'), 'the 21st new name');
    t.equal(
      (await enter(daemon, 'flood-0', '198.51.100.30')).status,
      302,
      'a room it made is still entered: entering is not making',
    );
    t.equal((await enter(daemon, 'neighbour', '198.51.100.31')).status, 302, 'another client still makes a room');
    const app = await enter(daemon, 'app-room', '198.51.100.30', mint(claims('app-room')));
    t.equal(app.status, 302, "the application's token holders are not counted (the application vouches for them)");
    t.ok(await exists(daemon, made[0]!.roomId), 'the rooms made before the limit exist');

    // An IPv6 client is its /56: the /64s of one customer share the count.
    await flood(t, daemon, 20, (i) => `2001:db8:9:1${(i % 16).toString(16)}0::${i + 1}`, 'six');
    tooMany(t, await enter(daemon, 'six-20', '2001:db8:9:1ff::1'), 'another /64 of the same /56');
    t.equal((await enter(daemon, 'six-other', '2001:db8:9:200::1')).status, 302, 'the next /56 is another client');
  },
);

onEachServiceStore(
  'rooms made by arrivals without a token are deleted once unused; rooms in use or of the application stay',
  async (t, store) => {
    const daemon = await openRoomsDaemon(t, store, { COMPAT_JITSI_OPEN_ROOM_IDLE_SECS: '2' });
    const from = '198.51.100.40';
    const idle = await enter(daemon, 'nobody came', from);
    const busy = await enter(daemon, 'in use', from);
    const appRoom = await enter(daemon, 'the app room', from, mint(claims('the app room')));
    const adopted = await enter(daemon, 'adopted', from);
    t.equal(
      (await enter(daemon, 'adopted', from, mint(claims('adopted')))).roomId,
      adopted.roomId,
      'a token holder enters the open room made before',
    );
    for (const entry of [idle, busy, appRoom, adopted]) t.equal(entry.status, 302);

    // Somebody is in the busy room: its meeting is open as long as her live socket is.
    const started = await new Browser(daemon, busy.roomId).start({ name: 'Ann', t: busy.token });
    t.equal(started.body?.status, 'joined', 'Ann enters the busy room');
    const live = await connectLive(daemon, busy.roomId, admittedSession(started, 'Ann').session);
    t.teardown(() => live.client.close());

    const deadline = Date.now() + 15_000;
    while ((await exists(daemon, idle.roomId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    t.notOk(await exists(daemon, idle.roomId), 'the unused open room is deleted by the sweep');
    t.ok(await exists(daemon, busy.roomId), 'a room with a meeting going on stays');
    t.ok(await exists(daemon, appRoom.roomId), "a room made with the application's token stays");
    t.ok(await exists(daemon, adopted.roomId), "an open room a token holder entered is the application's: it stays");
    const again = await enter(daemon, 'nobody came', from);
    t.equal(again.status, 302, 'the same name makes the room afresh');
    t.equal(again.roomId, idle.roomId, 'under the same derived id');
  },
);
