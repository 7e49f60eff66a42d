// Issue 34 point 5: the waiting requests' contract, one suite run on both stores. Knocks read back
// in knock order, decisions in decision order, a knock's timeline entry sits where it was written;
// and the unit of work is the seam: a transition and its timeline entry commit together or not at
// all, a unit inside another is a savepoint, and a unit's writes are seen by nobody else before
// its commit.
import { createHash } from 'node:crypto';
import type { TimelineEntry } from '../../../src/engine/meetings/timeline.js';
import type { AsyncStores } from '../../../src/engine/async-ports.js';
import { newWaitingRequest, type WaitingRequest } from '../../../src/engine/waiting/waiting-request.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const t0 = Date.parse('2030-01-01T09:00:00.000Z');
const iso = (ms: number) => new Date(t0 + ms).toISOString();

async function meeting(stores: AsyncStores, meetingId = 'm-1'): Promise<string> {
  await stores.rooms.insert(waitingRoomFixture(`room-${meetingId}`));
  await stores.meetings.insertMeeting({
    meetingId,
    roomId: `room-${meetingId}`,
    startedAt: iso(0),
    endedAt: null,
    waitingDisabled: false,
    subject: '',
  });
  return meetingId;
}

const knock = (requestId: string, meetingId: string, atMs: number, name = requestId): WaitingRequest =>
  newWaitingRequest({
    requestId,
    meetingId,
    secretHash: createHash('sha256').update(requestId).digest('base64url'),
    name,
    note: `note of ${name}`,
    avatarUrl: `https://pictures.example/${requestId}.png`,
    nowMs: t0 + atMs,
    timeoutMs: 600_000,
  });

const decided = (r: WaitingRequest, state: WaitingRequest['state'], atMs: number): WaitingRequest => ({
  ...r,
  state,
  decidedAt: iso(atMs),
  participantId: state === 'admitted' ? `p-${r.requestId}` : null,
});

const entry = (meetingId: string, kind: TimelineEntry['kind'], atMs: number, r?: WaitingRequest): TimelineEntry => ({
  meetingId,
  at: iso(atMs),
  kind,
  actor: { kind: 'api', participantId: null, name: 'lms' },
  subject: r ? { requestId: r.requestId, participantId: r.participantId, name: r.name } : null,
  count: null,
});

onEachStore(
  'knocks read back whole, in knock order (same millisecond: as written); decisions in decision order',
  async (t, stores) => {
    const m = await meeting(stores);
    const { waitingRequests: requests } = stores;
    const [a, b, c, d] = [knock('a', m, 5), knock('b', m, 5), knock('c', m, 1), knock('d', m, 7, 'Zoë Ümlaut')];
    for (const r of [a, b, c, d]) await requests.insertKnock(r);
    t.same(await requests.pollableRequests(m), [c, a, b, d], 'every field, bytes of the hash included');
    await requests.updateRequest(decided(d, 'barred', 20));
    await requests.updateRequest(decided(a, 'refused', 30));
    await requests.updateRequest(decided(b, 'withdrawn', 31));
    await requests.updateRequest(decided(c, 'admitted', 40));
    t.same(
      (await requests.pollableRequests(m)).map((r) => [r.requestId, r.state]),
      [
        ['c', 'admitted'],
        ['a', 'refused'],
        ['d', 'barred'],
      ],
      'withdrawn is no longer pollable',
    );
    t.same(await requests.refusedRequests(m), [decided(d, 'barred', 20), decided(a, 'refused', 30)]);
    t.same(await requests.pollableRequests('other'), []);
  },
);

onEachStore("a knock's timeline entry sits after the entries written before it", async (t, stores) => {
  const m = await meeting(stores);
  const a = knock('a', m, 1);
  const b = knock('b', m, 3);
  await stores.waitingRequests.insertKnock(a);
  await stores.meetings.appendTimeline(entry(m, 'moderator_arrived', 2));
  await stores.waitingRequests.insertKnock(b);
  await stores.meetings.appendTimeline(entry(m, 'admit', 4, decided(b, 'admitted', 4)));
  const timeline = await stores.meetings.timelineOf(m);
  t.same(
    timeline.map((e) => [e.kind, e.subject?.requestId ?? null]),
    [
      ['knock', 'a'],
      ['moderator_arrived', null],
      ['knock', 'b'],
      ['admit', 'b'],
    ],
  );
  t.same(timeline[0], {
    meetingId: m,
    at: a.knockedAt,
    kind: 'knock',
    actor: null,
    subject: { requestId: 'a', participantId: null, name: 'a' },
    count: null,
  });
  t.same(timeline[3], entry(m, 'admit', 4, decided(b, 'admitted', 4)));
});

onEachStore('a transition and its timeline entry commit together, or neither does', async (t, stores) => {
  const m = await meeting(stores);
  const { waitingRequests: requests, meetings, unitOfWork } = stores;
  const r = knock('r', m, 1);
  await requests.insertKnock(r);

  const failed = unitOfWork.run(async () => {
    await requests.updateRequest(decided(r, 'admitted', 2));
    await meetings.appendTimeline(entry(m, 'admit', 2, decided(r, 'admitted', 2)));
    throw new Error('the admission failed after both writes');
  });
  await t.rejects(failed, /the admission failed/);
  t.same(await requests.pollableRequests(m), [r], 'the request is still waiting');
  t.same(
    (await meetings.timelineOf(m)).map((e) => e.kind),
    ['knock'],
    'and no admit entry was kept',
  );

  const value = await unitOfWork.run(async () => {
    await requests.updateRequest(decided(r, 'admitted', 3));
    await meetings.appendTimeline(entry(m, 'admit', 3, decided(r, 'admitted', 3)));
    return 'admitted';
  });
  t.equal(value, 'admitted', "run answers the work's value once committed");
  t.same(await requests.pollableRequests(m), [decided(r, 'admitted', 3)]);
  t.same(
    (await meetings.timelineOf(m)).map((e) => e.kind),
    ['knock', 'admit'],
  );
});

onEachStore(
  'a unit inside another is a savepoint: a failure caught inside undoes only its own writes',
  async (t, stores) => {
    const m = await meeting(stores);
    const { waitingRequests: requests, meetings, unitOfWork } = stores;
    const [a, b] = [knock('a', m, 1), knock('b', m, 2)];
    await unitOfWork.run(async () => {
      await requests.insertKnock(a);
      await unitOfWork
        .run(async () => {
          await requests.insertKnock(b);
          await meetings.appendTimeline(entry(m, 'refuse', 3, decided(b, 'refused', 3)));
          throw new Error('inner');
        })
        .catch(() => undefined);
      await meetings.appendTimeline(entry(m, 'admit', 4, decided(a, 'admitted', 4)));
    });
    t.same(
      (await requests.pollableRequests(m)).map((r) => r.requestId),
      ['a'],
    );
    t.same(
      (await meetings.timelineOf(m)).map((e) => e.kind),
      ['knock', 'admit'],
    );
  },
);

onEachStore("a unit's writes are seen by nobody else before its commit", async (t, stores, store) => {
  const m = await meeting(stores);
  const { waitingRequests: requests, unitOfWork } = stores;
  const r = knock('r', m, 1);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let written!: () => void;
  const inside = new Promise<void>((resolve) => (written = resolve));
  const unit = unitOfWork.run(async () => {
    await requests.insertKnock(r);
    written();
    await held;
  });
  await inside;
  // Read from outside the unit while it is open: PostgreSQL answers at once from the committed
  // state; SQLite (one connection) answers once the unit is done. Neither shows an open unit's write.
  let seen: WaitingRequest[] | null = null;
  const outside = requests.pollableRequests(m).then((rows) => (seen = rows));
  if (store === 'PostgreSQL') {
    await outside;
    t.same(seen, [], "PostgreSQL: the committed state, without the open unit's knock");
  } else {
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    t.equal(seen, null, 'SQLite: the read waits for the open unit');
  }
  release();
  await unit;
  await outside;
  if (store === 'SQLite') t.same(seen, [r], 'SQLite: then it sees the unit whole');
  t.same(await requests.pollableRequests(m), [r], 'committed');
});
