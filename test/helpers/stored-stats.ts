import { MeetingStats } from '../../src/engine/stats/meeting-stats.js';
import { openDatabase } from '../../src/store/database.js';
import { sqliteAsyncStores } from '../../src/store/async-sqlite.js';

/** Reads the statistics of a meeting straight from the data directory of a stopped daemon. */
export async function statsIn(dataDir: string, meetingId: string) {
  const db = openDatabase(dataDir);
  try {
    const stores = sqliteAsyncStores(db);
    try {
      return await new MeetingStats(stores.stats, stores.unitOfWork, { now: () => new Date() }).of(meetingId);
    } finally {
      stores.close();
    }
  } finally {
    db.close();
  }
}
