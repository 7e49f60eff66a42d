import { existsSync, readFileSync } from 'node:fs';

/**
 * Commits recorded in a SQLite write-ahead log (`<database>-wal`): the frames of the current
 * log generation (their salts match the header's) that end a transaction (a non-zero "database
 * size after commit"). Each is one durable commit, one fsync under synchronous=FULL. Read from
 * the file itself, so it works on a live daemon's database or on what a kill -9 left behind.
 * Valid until the log is checkpointed and restarted (after 1,000 pages by default).
 */
export function walCommits(databaseFile: string): { commits: number; generation: string } {
  const wal = `${databaseFile}-wal`;
  if (!existsSync(wal)) return { commits: 0, generation: '' };
  const bytes = readFileSync(wal);
  if (bytes.length < 32) return { commits: 0, generation: '' };
  const pageSize = bytes.readUInt32BE(8);
  const salt1 = bytes.readUInt32BE(16);
  const salt2 = bytes.readUInt32BE(20);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= bytes.length; at += 24 + pageSize) {
    if (bytes.readUInt32BE(at + 8) !== salt1 || bytes.readUInt32BE(at + 12) !== salt2) break;
    if (bytes.readUInt32BE(at + 4) !== 0) commits++;
  }
  return { commits, generation: `${salt1}:${salt2}` };
}
