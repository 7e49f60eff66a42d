// Issue 35 point 4, measured: three real nodes on one PostgreSQL and one nats-server, a room whose
// waiting room fills by one acknowledged knock a round, and FAILOVER_ROUNDS rounds (20 in CI's
// failover lane, 2 when run by hand) of each way a node is lost:
// - kill -9 of the room's owner: another node owns the room (a higher epoch), the killed node
//   starts again under its id;
// - SIGSTOP of the owner for 8 s: another node owns the room; once woken the old owner finds its
//   lease gone (it logs the loss) and serves nothing of the room from memory;
// - kill -9 of nats-server, then a start again: the room keeps its owner and epoch (ownership is
//   PostgreSQL's), a knock through the owner is acknowledged during the outage.
// After every round: the waiting queue is the same as before (names, order, notes, states), every
// waiting person's poll through the room's owner says "waiting", no acknowledged knock is lost or
// doubled, and no epoch was seen with two owners. The failover times are printed (p50, p99) for the
// README; tests do not assert timings.
import postgres from 'postgres';
import { startNodes } from '../../helpers/cluster-nodes.js';
import { apiOf, stopDaemon } from '../../helpers/daemon.js';
import { clusterTest } from '../../helpers/nats.js';
import { until } from '../../helpers/net.js';
import { Browser, createRoom, sleep } from '../../helpers/waiting.js';

const rounds = Number(process.env.FAILOVER_ROUNDS ?? '2');
const frozenMs = 8000;
const room = 'lesson-1';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

clusterTest(`failover: ${rounds} rounds each of kill -9, SIGSTOP ${frozenMs / 1000} s and NATS kill -9`, async (t) => {
  t.setTimeout(120_000 + rounds * 60_000);
  const ids = ['node-a', 'node-b', 'node-c'];
  const cluster = await startNodes(t, ids);
  const sql = postgres({ ...cluster.db.options, onnotice: () => {} });
  t.teardown(() => sql.end({ timeout: 5 }));
  const token = [...cluster.running.values()].map((d) => d.adminToken).find((found) => found !== '')!;
  const server = (nodeId: string) => ({ api: apiOf(cluster.running.get(nodeId)!.url, token), adminToken: token });
  // An hour's wait at most (the rounds take minutes, more under load): no request expires during the test.
  await createRoom(t, server('node-a'), {
    room_id: room,
    name: 'Lesson 1',
    waiting_room: 'all',
    waiting_room_timeout_secs: 3600,
  });

  const epochOwners = new Map<string, string>();
  const lease = async () => {
    const [row] = await sql<{ owner_node: string; epoch: string }[]>`
      SELECT owner_node, epoch::text FROM meet_engine.room_leases WHERE room_id = ${room}`;
    if (row) {
      const seen = epochOwners.get(row.epoch);
      if (seen !== undefined && seen !== row.owner_node)
        t.fail(`epoch ${row.epoch} had two owners: ${seen} and ${row.owner_node}`);
      epochOwners.set(row.epoch, row.owner_node);
    }
    return row ?? null;
  };
  const queue = async () =>
    (
      await sql<{ name: string; state: string; note: string }[]>`
        SELECT w.name, w.state, w.note FROM meet_engine.waiting_requests w JOIN meet_engine.meetings m USING (meeting_id)
        WHERE m.room_id = ${room} ORDER BY w.knocked_at COLLATE "C", w.ordinal`
    ).map((r) => `${r.name}|${r.state}|${r.note}`);

  /** Sends a person's request to the node that serves the room now: the one a 421 names, else the next. */
  const throughOwner = async (send: (nodeId: string) => Promise<{ status: number; body: any }>) => {
    let nodeId = (await lease())?.owner_node ?? 'node-a';
    let last = { status: 0, body: null as any };
    await until(
      'the room answers',
      async () => {
        last = await send(nodeId).catch(() => ({ status: 0, body: null }));
        if (last.status === 421 && typeof last.body?.error?.owner_node === 'string')
          nodeId = last.body.error.owner_node;
        else if (last.status === 0 || last.status >= 500) nodeId = ids[(ids.indexOf(nodeId) + 1) % ids.length]!;
        return last.status !== 0 && last.status !== 421 && last.status < 500;
      },
      20_000,
      50,
    );
    return last;
  };

  const waiting: { name: string; browser: Browser }[] = [];
  let knocks = 0;
  const knock = async () => {
    const name = `Pupil ${++knocks}`;
    let browser: Browser | null = null;
    const answer = await throughOwner(async (nodeId) => {
      // Each pupil from an address of her own, told through the trusted proxy as nginx would.
      browser = new Browser(server(nodeId), room, { forwardedFor: `10.35.${knocks >> 8}.${knocks & 255}` });
      return browser.knock({ name, note: `note ${knocks}` });
    });
    t.equal(answer.status, 202, `${name} knocked: acknowledged`);
    waiting.push({ name, browser: browser! });
  };
  const pollsSayWaiting = async (label: string) => {
    const said: string[] = [];
    for (const { name, browser } of waiting) {
      const polled = await throughOwner(async (nodeId) => {
        const moved = new Browser(server(nodeId), room, browser.options);
        moved.setCookie(browser.cookie);
        return moved.poll();
      });
      said.push(`${name}:${polled.status}:${polled.body?.status}`);
    }
    t.same(
      said,
      waiting.map(({ name }) => `${name}:200:waiting`),
      `${label}: every waiting person's poll says waiting`,
    );
  };
  const ownerMoves = async (from: string, epoch: number) => {
    await until(
      'another node owns the room',
      async () => {
        const now = await lease();
        return now !== null && now.owner_node !== from && Number(now.epoch) > epoch;
      },
      30_000,
      20,
    );
  };

  await knock();
  const times = { kill: [] as number[], stop: [] as number[], nats: [] as number[] };
  for (let round = 1; round <= rounds; round++) {
    // kill -9 of the owner.
    await knock();
    let before = await lease();
    let queued = await queue();
    const killed = before!.owner_node;
    const killedAt = Date.now();
    await stopDaemon(cluster.running.get(killed)!, 'SIGKILL');
    await ownerMoves(killed, Number(before!.epoch));
    times.kill.push(Date.now() - killedAt);
    t.same(await queue(), queued, `kill round ${round}: the same queue`);
    await pollsSayWaiting(`kill round ${round}`);
    await cluster.restart(killed);

    // SIGSTOP of the owner for 8 s.
    await knock();
    before = await lease();
    queued = await queue();
    const frozen = cluster.running.get(before!.owner_node)!;
    const frozenId = before!.owner_node;
    const linesBefore = frozen.lines.length;
    const frozenAt = Date.now();
    frozen.child.kill('SIGSTOP');
    try {
      await ownerMoves(frozenId, Number(before!.epoch));
      times.stop.push(Date.now() - frozenAt);
      await sleep(Math.max(0, frozenAt + frozenMs - Date.now()));
    } finally {
      frozen.child.kill('SIGCONT');
    }
    await until(
      'the woken owner drops the room',
      async () => frozen.lines.slice(linesBefore).some((line) => line.includes(`room ${room} lost to another node`)),
      15_000,
      50,
    );
    t.same(await queue(), queued, `stop round ${round}: the same queue`);
    await pollsSayWaiting(`stop round ${round}`);

    // kill -9 of nats-server, and back.
    before = await lease();
    const natsKilledAt = Date.now();
    await cluster.nats.kill();
    await knock();
    await cluster.nats.restart();
    await until(
      'every node is ready again',
      async () => {
        for (const daemon of cluster.running.values())
          if ((await fetch(`${daemon.url}/readyz`).catch(() => null))?.status !== 200) return false;
        return true;
      },
      30_000,
      50,
    );
    times.nats.push(Date.now() - natsKilledAt);
    const after = await lease();
    t.same([after?.owner_node, after?.epoch], [before?.owner_node, before?.epoch], `nats round ${round}: same owner`);
    await pollsSayWaiting(`nats round ${round}`);
  }

  t.same(
    await queue(),
    waiting.map(({ name }, i) => `${name}|waiting|note ${i + 1}`),
    `every acknowledged knock once, in order (${knocks})`,
  );
  const meetings = await sql`SELECT count(*)::int AS n FROM meet_engine.meetings WHERE room_id = ${room}`;
  t.equal(meetings[0]?.n, 1, 'one meeting throughout');
  const figures = (name: string, values: number[]) =>
    `${name}: p50 ${percentile(values, 50)} ms, p99 ${percentile(values, 99)} ms, max ${Math.max(...values)} ms (${values.length} rounds)`;
  t.comment(`failover, 3 nodes: ${figures('kill -9 of the owner', times.kill)}`);
  t.comment(`failover, 3 nodes: ${figures(`SIGSTOP of the owner (${frozenMs / 1000} s)`, times.stop)}`);
  t.comment(`NATS kill -9 and start, until every node is ready: ${figures('outage', times.nats)}`);
  t.ok(epochOwners.size >= 2 * rounds + 1, `epochs seen: ${epochOwners.size}, one owner each`);
});
