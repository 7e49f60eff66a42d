import { chownSync, closeSync, fchmodSync, openSync, readSync, statSync } from 'node:fs';
import { databaseFiles, privateFileMode } from '../platform/private-files.js';
import { openSqlite } from '../platform/sqlite.js';

/**
 * Copies the database `source` to `destination` (created 0600, empty) with `VACUUM INTO` while
 * the service keeps writing to it. The copy is one read transaction: a snapshot of committed
 * transactions only, never half of one, and writers are not blocked (WAL). The connection is
 * read-only: it never checkpoints or writes the service's file. Not better-sqlite3's `backup()`:
 * on Node 24 the garbage collector's release of its Backup object aborts the process (an
 * assertion in node::ObjectWrap's destructor, seen in the test shards).
 */
export function copyDatabaseOnline(source: string, destination: string): void {
  const sidecars = databaseFiles(source).slice(1);
  const existed = sidecars.filter((file) => statSync(file, { throwIfNoEntry: false }) !== undefined);
  const fd = openSync(destination, 'wx', privateFileMode);
  try {
    fchmodSync(fd, privateFileMode);
  } finally {
    closeSync(fd);
  }
  const db = openSqlite(source, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    db.prepare('VACUUM INTO ?').run(destination);
  } finally {
    db.close();
    keepOwner(
      source,
      sidecars.filter((file) => !existed.includes(file)),
    );
  }
}

/**
 * SQLite may create the -wal and -shm files of a stopped service's database when it reads it.
 * Made by root (`sudo meetctl backup`), they would be root's, and the service user could no
 * longer open its own database: they are given the database file's owner.
 */
function keepOwner(database: string, created: readonly string[]): void {
  if (process.getuid?.() !== 0) return;
  const owner = statSync(database);
  for (const file of created) {
    if (statSync(file, { throwIfNoEntry: false }) !== undefined) chownSync(file, owner.uid, owner.gid);
  }
}

/**
 * The schema version (PRAGMA user_version) of a database file, read from its header (bytes
 * 60-63, big-endian), without opening it: SQLite would write a -shm beside a file that may be
 * part of a backup being checked. null: not an SQLite database.
 */
export function schemaVersionOfFile(file: string): number | null {
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, 100, 0) < 100) return null;
  } finally {
    closeSync(fd);
  }
  if (header.subarray(0, 16).toString('latin1') !== 'SQLite format 3\0') return null;
  return header.readUInt32BE(60);
}

/**
 * Whether another process (a running service) has the database `file` open. A WAL connection
 * holds a shared lock on the file as long as it is open, so asking for the exclusive lock,
 * without waiting, fails exactly then. Absent or not a database: false.
 */
export function databaseInUse(file: string): boolean {
  if (statSync(file, { throwIfNoEntry: false }) === undefined) return false;
  let db: ReturnType<typeof openSqlite> | null = null;
  try {
    db = openSqlite(file, { fileMustExist: true, timeout: 0 });
    db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT');
    return false;
  } catch (err) {
    return (err as { code?: unknown }).code === 'SQLITE_BUSY';
  } finally {
    db?.close();
  }
}
