/**
 * What the two stores hold differently in a row (issue 34): SQLite (better-sqlite3) keeps a flag as
 * 0/1 and a bigint column as a number; PostgreSQL (postgres.js) a flag as a boolean and a bigint as
 * text. Every other column reads and writes alike, so the row mappers of this folder take one of
 * the two `Columns` below and are otherwise the same for both adapters; the SQL stays in each.
 */
export interface StoreTypes {
  readonly flag: unknown;
  readonly big: unknown;
}

/** SQLite's column types: a flag is 0 or 1, an integer a number. */
export interface SqliteTypes extends StoreTypes {
  readonly flag: number;
  readonly big: number;
}

/** PostgreSQL's column types: a flag is a boolean, a bigint the driver's text of it. */
export interface PostgresTypes extends StoreTypes {
  readonly flag: boolean;
  readonly big: string;
}

/** How one store's flag and bigint columns read into the domain, and how they are written. */
export interface Columns<S extends StoreTypes> {
  readonly flag: (value: S['flag']) => boolean;
  readonly toFlag: (value: boolean) => S['flag'];
  readonly big: (value: S['big']) => number;
  readonly toBig: (value: number) => S['big'];
}

export const sqliteColumns: Columns<SqliteTypes> = {
  flag: (value) => value === 1,
  toFlag: (value) => (value ? 1 : 0),
  big: (value) => value,
  toBig: (value) => value,
};

export const postgresColumns: Columns<PostgresTypes> = {
  flag: (value) => value,
  toFlag: (value) => value,
  big: Number,
  // postgres.js sends a number and its text alike (an untyped parameter, as text).
  toBig: String,
};
