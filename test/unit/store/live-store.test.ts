import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ChatLog } from '../../../src/engine/live/chat-log.js';
import { MeetingLocks } from '../../../src/engine/live/meeting-locks.js';
import { MeetingStats } from '../../../src/engine/stats/meeting-stats.js';
import { sqliteAsyncStores } from '../../../src/store/async-sqlite.js';
import { openDatabase, type Db } from '../../../src/store/database.js';
import { SqliteMeetingStore } from '../../../src/store/meeting-store.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import type { Tap } from '../../helpers/api.js';

function open(t: Tap, dir?: string): { db: Db; dir: string } {
  const dataDir = dir ?? mkdtempSync(join(tmpdir(), 'meet-live-'));
  if (!dir) t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const db = openDatabase(dataDir);
  t.teardown(() => db.open && db.close());
  return { db, dir: dataDir };
}

/** A room, its meeting m1 and participants ann and bob, as the engine would write them. */
function seed(db: Db): void {
  db.prepare(
    "INSERT INTO rooms (room_id, name, waiting_room, waiting_room_mode, waiting_room_timeout_secs, created_at, updated_at) VALUES ('r1', 'R', 'off', 'approval', 600, 'x', 'x')",
  ).run();
  const meetings = new SqliteMeetingStore(db);
  meetings.insertMeeting({
    meetingId: 'm1',
    roomId: 'r1',
    startedAt: '2030-01-01T09:00:00.000Z',
    endedAt: null,
    waitingDisabled: false,
    subject: '',
  });
  for (const id of ['ann', 'bob']) {
    meetings.insertParticipant({
      participantId: id,
      meetingId: 'm1',
      roomId: 'r1',
      role: 'participant',
      name: id,
      joinedAt: '2030-01-01T09:00:00.000Z',
      leftAt: null,
    });
  }
}

t.test('chat, locks and statistics are written to SQLite and read back after reopening', async (t) => {
  const clock = new FakeClock();
  const first = open(t);
  seed(first.db);
  const chat = new ChatLog(sqliteAsyncStores(first.db).chat, clock, 2);
  await chat.post('m1', { participantId: 'ann', name: 'Ann' }, 'one');
  await chat.post('m1', { participantId: null, name: 'System' }, 'two');
  await chat.post('m1', { participantId: 'bob', name: 'Bob' }, 'three');
  await new MeetingLocks(sqliteAsyncStores(first.db).locks, clock).set('m1', {
    mic: true,
    cam: false,
    camsModeratorsOnly: true,
  });
  const firstStores = sqliteAsyncStores(first.db);
  const stats = new MeetingStats(firstStores.stats, firstStores.unitOfWork, clock);
  await stats.state('m1', 'ann', { audio: true, video: true });
  await stats.speaking('m1', 'ann', true);
  clock.advance(1_500);
  await stats.speaking('m1', 'ann', false);
  await stats.chat('m1', 'ann');
  await stats.state('m1', 'bob', { audio: false, video: true });
  clock.advance(500);
  first.db.close();

  // Reopened as after kill -9: what was running ends at the restart.
  const second = open(t, first.dir);
  const reopened = sqliteAsyncStores(second.db);
  t.same(
    (await new ChatLog(reopened.chat, clock, 2).latest('m1')).map((e) => [e.participantId, e.name, e.text]),
    [
      [null, 'System', 'two'],
      ['bob', 'Bob', 'three'],
    ],
  );
  t.same(await new MeetingLocks(sqliteAsyncStores(second.db).locks, clock).get({ meetingId: 'm1', roomId: 'r1' }), {
    mic: true,
    cam: false,
    camsModeratorsOnly: true,
  });
  const restarted = new MeetingStats(reopened.stats, reopened.unitOfWork, clock);
  t.equal(await restarted.settleUnfinished(), 2, 'what was running is settled by the serving daemon');
  const after = await restarted.of('m1');
  t.match(after, [
    {
      participantId: 'ann',
      audio: false,
      video: false,
      talkTimeMs: 1_500,
      chatMessages: 1,
      webcams: [{ endedAt: clock.now().toISOString() }],
    },
    { participantId: 'bob', video: false, talkTimeMs: 0, webcams: [{ endedAt: clock.now().toISOString() }] },
  ]);
  t.equal((await reopened.stats.unsettledStats()).length, 0);

  // Deleting the room takes everything of its meetings with it.
  second.db.prepare("DELETE FROM rooms WHERE room_id = 'r1'").run();
  for (const table of ['chat_messages', 'meeting_locks', 'participant_stats', 'webcam_intervals']) {
    t.equal(
      (second.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
      0,
      `${table} emptied by the cascade`,
    );
  }
});
