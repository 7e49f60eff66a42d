import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { makeDirectory } from './file-owner.js';
import { privateDatabase, privateDirMode } from './private-files.js';

type Db = Database.Database;

/**
 * Every better-sqlite3 object the process makes lives as long as the process. better-sqlite3
 * 12 (the newest that supports Node 20) wraps databases and statements in node::ObjectWrap;
 * built against Node 24's headers, that wrapper's destructor needs a current JS context, so an
 * object collected by a garbage collection that runs outside one aborts the process (SIGABRT,
 * "Assertion failed: (env) != nullptr"; nodejs/node#63642, fixed in better-sqlite3 13, which
 * needs Node 22+). The Node 24 CI leg found it as daemons and test processes dying at random.
 * So a database opened here, and every statement prepared on any database, is kept: the
 * service prepares each statement once (repositories hold theirs), so this costs nothing; a
 * statement prepared per request would show as growth in `npm run bench`'s memory figure.
 * Settings go through `exec`, which makes no statement object at all.
 */
const keptAlive = new Set<object>();
const prototype = Database.prototype as unknown as { prepare: (this: object, ...args: unknown[]) => object };
const prepare = prototype.prepare;
prototype.prepare = function keptPrepare(this: object, ...args: unknown[]): object {
  const statement = prepare.apply(this, args);
  keptAlive.add(statement);
  return statement;
};

/** A database handle kept for the life of the process (see above); `options` as better-sqlite3's. */
export function openSqlite(file: string, options?: Database.Options): Db {
  const db = new Database(file, options);
  keptAlive.add(db);
  return db;
}

const kept = new WeakMap<Db, Map<string, Database.Statement>>();

/** The value of `PRAGMA name` (a name from this code, never from input). */
export function readPragma(db: Db, name: string): unknown {
  let statements = kept.get(db);
  if (!statements) kept.set(db, (statements = new Map<string, Database.Statement>()));
  let statement = statements.get(name);
  if (!statement) statements.set(name, (statement = db.prepare(`PRAGMA ${name}`).pluck()));
  return statement.get();
}

/** Sets `PRAGMA name = value` (an integer or a keyword from this code, never from input). */
export function setPragma(db: Db, name: string, value: number | string): void {
  db.exec(`PRAGMA ${name} = ${value}`);
}

/**
 * A database file opened the way the service keeps every one: WAL, synchronous=FULL (a
 * transition acknowledged to a client survives a power cut, not only a crash of the process),
 * foreign keys on, and up to 5 s of waiting for another writer's lock. The file and its WAL
 * and shm files are the owner's alone (0600), whatever the umask; its directory is made when
 * absent, owned as its parent is.
 */
export function openDurable(file: string): Db {
  makeDirectory(dirname(file), privateDirMode);
  privateDatabase(file);
  try {
    const db = openSqlite(file, { timeout: 5000 });
    setPragma(db, 'journal_mode', 'WAL');
    setPragma(db, 'synchronous', 'FULL');
    setPragma(db, 'foreign_keys', 'ON');
    return db;
  } catch (err) {
    if (err instanceof Database.SqliteError) throw new DatabaseFileError(file, err);
    throw err;
  }
}

/**
 * A database SQLite could not open or set up (a read-only filesystem, a directory the user
 * cannot write, for the -wal and -shm files beside it): SQLite's own message names no file.
 * `code` stays SQLite's, so the CLI can tell the machine's fault from a bug.
 */
export class DatabaseFileError extends Error {
  override readonly name = 'DatabaseFileError';
  readonly code: string;
  constructor(
    readonly file: string,
    cause: InstanceType<typeof Database.SqliteError>,
  ) {
    super(`cannot open the database ${file}: ${cause.message} (${cause.code})`, { cause });
    this.code = cause.code;
  }
}
