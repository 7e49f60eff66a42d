/**
 * The knock's durable write alone: what one knock writes (its request row, which also holds its
 * timeline entry), through the daemon's own repositories and pragmas, in transactions of `batch` knocks
 * (what group commit achieves at best with that many connections), one synced commit each, on
 * the same disk as the knock scenario, with no HTTP and no engine. Its rate is a ceiling no
 * knock over HTTP can pass while the commit runs on the request thread.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './servers.js';

export interface KnockFloor {
  readonly knocksPerSec: number;
  readonly usPerKnock: number;
  readonly batch: number;
  readonly commits: number;
}

interface Repositories {
  transaction(fn: () => void): Promise<void>;
  insertKnock(request: unknown): void;
  close(): void;
  openMeetings(): { meetingId: string }[];
  newRequestId(nowMs: number): string;
}

// What the bench uses of the built daemon's modules, described here: bench/ compiles on its
// own (src/ is outside its rootDir), so they are loaded at run time.
interface Db {
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}
interface DaemonModules {
  'store/database.js': { openDatabase: (dataDir: string) => Db };
  'store/async-sqlite.js': {
    sqliteAsyncStores: (db: Db) => { unitOfWork: { run<T>(fn: () => Promise<T>): Promise<T> }; close(): void };
  };
  'store/waiting-request-store.js': {
    SqliteWaitingRequestStore: new (db: Db) => { insertKnock(request: unknown): void };
  };
  'engine/waiting/request-id.js': { newRequestId: (nowMs: number) => string };
}

async function repositories(dataDir: string): Promise<Repositories> {
  const load = async <P extends keyof DaemonModules>(path: P) =>
    (await import(pathToFileURL(join(repoRoot, 'dist', path)).href)) as DaemonModules[P];
  const { openDatabase } = await load('store/database.js');
  const { sqliteAsyncStores } = await load('store/async-sqlite.js');
  const { SqliteWaitingRequestStore } = await load('store/waiting-request-store.js');
  // The daemon's own request ids: their form decides where the primary-key entry lands.
  const { newRequestId } = await load('engine/waiting/request-id.js');
  const db = openDatabase(dataDir);
  // The daemon's unit of work (units take turns on the one connection); this loop opens one at a time.
  const stores = sqliteAsyncStores(db);
  const requests = new SqliteWaitingRequestStore(db);
  return {
    transaction: (fn) => stores.unitOfWork.run(async () => fn()),
    insertKnock: (r) => requests.insertKnock(r),
    close: () => {
      stores.close();
      db.close();
    },
    newRequestId: (nowMs) => newRequestId(nowMs),
    openMeetings: () =>
      db.prepare('SELECT meeting_id AS meetingId FROM meetings WHERE ended_at IS NULL').all() as {
        meetingId: string;
      }[],
  };
}

/** Writes knocks for `seconds` into the database of `dataDir` (its open meetings must exist). */
export async function measureKnockFloor(dataDir: string, seconds: number, batch: number): Promise<KnockFloor> {
  const repos = await repositories(dataDir);
  const meetings = repos.openMeetings().map((m) => m.meetingId);
  if (meetings.length === 0) throw new Error('the knock floor needs the open meetings of the knock scenario');
  let n = 0;
  let commits = 0;
  const knock = () => {
    const meetingId = meetings[n % meetings.length]!;
    const now = new Date();
    const requestId = repos.newRequestId(now.getTime());
    const name = `Floor ${n++}`;
    repos.insertKnock({
      requestId,
      meetingId,
      secretHash: randomBytes(32).toString('base64url'),
      name,
      note: '',
      state: 'waiting',
      knockedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
      decidedAt: null,
      participantId: null,
    });
  };
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    await repos.transaction(() => {
      for (let k = 0; k < batch; k++) knock();
    });
    commits += 1;
  }
  const elapsedMs = performance.now() - t0;
  repos.close();
  return { knocksPerSec: (n / elapsedMs) * 1000, usPerKnock: (elapsedMs * 1000) / n, batch, commits };
}
