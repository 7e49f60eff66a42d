import Database from 'better-sqlite3';

type Db = Database.Database;

/**
 * PRAGMAs without throwaway statements. better-sqlite3 12 wraps every statement in a
 * node::ObjectWrap; built against Node 24's headers, its destructor needs a current JS
 * context, so a statement collected by a garbage collection that runs outside one aborts the
 * process (SIGABRT, "Assertion failed: (env) != nullptr"; nodejs/node#63642). `db.pragma()`
 * prepares a new statement on every call. So every statement the service makes is made once
 * and kept as long as its database: settings go through `exec` (no statement object), and a
 * read keeps its statement here.
 */
const kept = new WeakMap<Db, Map<string, Database.Statement>>();

/** The value of `PRAGMA name` (a name from this code, never from input). */
export function readPragma(db: Db, name: string): unknown {
  let statements = kept.get(db);
  if (!statements) kept.set(db, (statements = new Map()));
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
 * foreign keys on, and up to 5 s of waiting for another writer's lock.
 */
export function openDurable(file: string): Db {
  const db = new Database(file, { timeout: 5000 });
  setPragma(db, 'journal_mode', 'WAL');
  setPragma(db, 'synchronous', 'FULL');
  setPragma(db, 'foreign_keys', 'ON');
  return db;
}
