// Issue 34 point 5: the live stores' contracts (ChatStore, LockStore, StatsStore,
// SubgroupTimerStore, GroupMessageStore), one suite on both stores: what is written reads back
// the same, in the same order (SQLite's rowid order is PostgreSQL's seq or ordinal), upserts keep
// one row, absent rows read as null or nothing, and a write inside a failed unit of work is not kept.
import type { AsyncStores } from '../../../src/engine/async-ports.js';
import type { StatsRecord } from '../../../src/engine/stats/meeting-stats.js';
import { waitingRoomFixture } from '../../helpers/room-fixture.js';
import { onEachStore } from '../../helpers/store-adapters.js';

const at = (minute: number) => `2030-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** A room with a meeting and the named participants in it; answers the meeting's id. */
async function meeting(stores: AsyncStores, id = 'm-1', people: readonly string[] = []): Promise<string> {
  const roomId = `room-of-${id}`;
  await stores.rooms.insert(waitingRoomFixture(roomId));
  await stores.meetings.insertMeeting({
    meetingId: id,
    roomId,
    startedAt: at(0),
    endedAt: null,
    waitingDisabled: false,
    subject: '',
  });
  for (const p of people)
    await stores.meetings.insertParticipant({
      participantId: p,
      meetingId: id,
      roomId,
      role: 'participant',
      name: p,
      joinedAt: at(1),
      leftAt: null,
    });
  return id;
}

const stats = (participantId: string, meetingId: string, fields: Partial<StatsRecord> = {}): StatsRecord => ({
  participantId,
  meetingId,
  audio: false,
  video: false,
  talkMs: 0,
  talkingSince: null,
  lastTalkAt: null,
  chatMessages: 0,
  ...fields,
});

onEachStore('chat: the most recent entries, oldest first, of one meeting only', async (t, stores) => {
  const { chat } = stores;
  const m = await meeting(stores);
  const other = await meeting(stores, 'm-2');
  t.same(await chat.recentChat(m, 10), [], 'no chat yet');
  // Five entries of the same instant: their order is the order of writing, not of their text.
  for (const text of ['e', 'd', 'c', 'b', 'a'])
    await chat.appendChat({
      meetingId: m,
      at: at(2),
      participantId: text === 'c' ? null : `p-${text}`,
      name: 'N',
      text,
    });
  await chat.appendChat({ meetingId: other, at: at(3), participantId: null, name: 'O', text: 'elsewhere' });
  t.same(
    (await chat.recentChat(m, 3)).map((e) => e.text),
    ['c', 'b', 'a'],
    'the last three, oldest first',
  );
  t.same((await chat.recentChat(m, 10)).at(2), { meetingId: m, at: at(2), participantId: null, name: 'N', text: 'c' });
  t.same(
    (await chat.recentChat(other, 10)).map((e) => e.text),
    ['elsewhere'],
  );
  t.same(await chat.recentChat('absent', 10), []);
});

onEachStore('locks: absent until saved; a second save replaces the first', async (t, stores) => {
  const { locks } = stores;
  const m = await meeting(stores);
  t.equal(await locks.getLocks(m), null);
  await locks.saveLocks(m, { mic: true, cam: false, camsModeratorsOnly: true }, at(1));
  t.same(await locks.getLocks(m), { mic: true, cam: false, camsModeratorsOnly: true });
  await locks.saveLocks(m, { mic: false, cam: true, camsModeratorsOnly: false }, at(2));
  t.same(await locks.getLocks(m), { mic: false, cam: true, camsModeratorsOnly: false });
  t.equal(await locks.getLocks('absent'), null);
});

onEachStore('stats: upserts keep their first place; the unsettled ones; webcams in order', async (t, stores) => {
  const { stats: store } = stores;
  const m = await meeting(stores, 'm-1', ['p-z', 'p-a', 'p-m']);
  const other = await meeting(stores, 'm-2', ['q-1']);
  t.equal(await store.getStats('p-z'), null);
  t.same(await store.statsOf(m), []);
  await store.saveStats(stats('p-z', m, { talkMs: 1500.4, lastTalkAt: at(3), chatMessages: 2 }));
  await store.saveStats(stats('p-a', m, { audio: true }));
  await store.saveStats(stats('p-m', m, { talkingSince: at(4) }));
  await store.saveStats(stats('q-1', other, { video: true }));
  // Updating the first one keeps it first (SQLite keeps its rowid on an upsert).
  const updated = stats('p-z', m, { talkMs: 2_000_000_000_000, lastTalkAt: at(5), chatMessages: 3, video: true });
  await store.saveStats(updated);
  t.same(await store.getStats('p-z'), updated, 'every field as written, a large talk time as a number');
  t.equal(typeof (await store.getStats('p-z'))?.talkMs, 'number');
  t.same(
    (await store.statsOf(m)).map((s) => s.participantId),
    ['p-z', 'p-a', 'p-m'],
    'in the order of their first save',
  );
  t.same(
    (await store.unsettledStats()).map((s) => s.participantId),
    ['p-z', 'p-a', 'p-m', 'q-1'],
  );
  await store.saveStats(stats('p-a', m));
  await store.saveStats(stats('p-z', m, { talkMs: 5 }));
  t.same(
    (await store.unsettledStats()).map((s) => s.participantId),
    ['p-m', 'q-1'],
    'settled ones (no audio, video or running talk) are left out',
  );
  t.same(await store.getStats('p-z'), stats('p-z', m, { talkMs: 5 }));

  t.same(await store.webcamsOf(m), []);
  await store.openWebcam(m, 'p-m', at(6));
  await store.openWebcam(m, 'p-a', at(6));
  await store.openWebcam(other, 'q-1', at(6));
  await store.closeWebcam('p-m', at(7));
  await store.closeWebcam('p-m', at(9));
  await store.openWebcam(m, 'p-m', at(8));
  t.same(await store.webcamsOf(m), [
    { participantId: 'p-m', startedAt: at(6), endedAt: at(7) },
    { participantId: 'p-a', startedAt: at(6), endedAt: null },
    { participantId: 'p-m', startedAt: at(8), endedAt: null },
  ]);
  t.same(await store.webcamsOf('absent'), []);
});

onEachStore('sub-group timers and group messages: by room id in byte order; null drops', async (t, stores) => {
  const { subgroupTimers: timers, groupMessages: messages, rooms } = stores;
  for (const id of ['b', 'B', 'a']) await rooms.insert(waitingRoomFixture(id));
  t.same(await timers.subgroupTimers(), []);
  t.same(await messages.groupMessages(), []);
  await timers.saveSubgroupTimer('b', at(10));
  await timers.saveSubgroupTimer('a', at(11));
  await timers.saveSubgroupTimer('B', at(12));
  await timers.saveSubgroupTimer('b', at(13));
  t.same(await timers.subgroupTimers(), [
    { roomId: 'B', endsAt: at(12) },
    { roomId: 'a', endsAt: at(11) },
    { roomId: 'b', endsAt: at(13) },
  ]);
  await timers.saveSubgroupTimer('a', null);
  await timers.saveSubgroupTimer('absent', null);
  t.same(
    (await timers.subgroupTimers()).map((r) => r.roomId),
    ['B', 'b'],
  );

  await messages.saveGroupMessage('b', { text: 'first', from: 'Ana' });
  await messages.saveGroupMessage('a', { text: 'Pause — 5 Min', from: 'Jörg' });
  await messages.saveGroupMessage('B', { text: 'x', from: 'y' });
  await messages.saveGroupMessage('b', { text: 'second', from: 'Bo' });
  t.same(await messages.groupMessages(), [
    { roomId: 'B', text: 'x', from: 'y' },
    { roomId: 'a', text: 'Pause — 5 Min', from: 'Jörg' },
    { roomId: 'b', text: 'second', from: 'Bo' },
  ]);
  await messages.saveGroupMessage('B', null);
  t.same(
    (await messages.groupMessages()).map((r) => r.roomId),
    ['a', 'b'],
  );
});

onEachStore('writes inside a failed unit of work are not kept', async (t, stores) => {
  const { chat, locks, stats: store, subgroupTimers: timers, groupMessages: messages, unitOfWork } = stores;
  const m = await meeting(stores, 'm-1', ['p-1']);
  await locks.saveLocks(m, { mic: false, cam: false, camsModeratorsOnly: false }, at(1));
  const failed = unitOfWork.run(async () => {
    await chat.appendChat({ meetingId: m, at: at(2), participantId: 'p-1', name: 'P', text: 'lost' });
    await locks.saveLocks(m, { mic: true, cam: true, camsModeratorsOnly: true }, at(2));
    await store.saveStats(stats('p-1', m, { audio: true }));
    await store.openWebcam(m, 'p-1', at(2));
    await timers.saveSubgroupTimer(`room-of-${m}`, at(9));
    await messages.saveGroupMessage(`room-of-${m}`, { text: 'lost', from: 'P' });
    throw new Error('the unit failed');
  });
  await t.rejects(failed, /the unit failed/);
  t.same(await chat.recentChat(m, 10), []);
  t.same(await locks.getLocks(m), { mic: false, cam: false, camsModeratorsOnly: false });
  t.equal(await store.getStats('p-1'), null);
  t.same(await store.webcamsOf(m), []);
  t.same(await timers.subgroupTimers(), []);
  t.same(await messages.groupMessages(), []);
});
