import { MeetingStats } from '../../src/engine/stats/meeting-stats.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteLiveStore } from '../../src/store/live-store.js';
import { SqliteUnitOfWork } from '../../src/store/unit-of-work.js';

/** Reads the statistics of a meeting straight from the data directory of a stopped daemon. */
export async function statsIn(dataDir: string, meetingId: string) {
  const db = openDatabase(dataDir);
  try {
    return await new MeetingStats(new SqliteLiveStore(db), new SqliteUnitOfWork(db), { now: () => new Date() }).of(
      meetingId,
    );
  } finally {
    db.close();
  }
}
