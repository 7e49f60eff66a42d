// The PostgreSQL connection pool of the process (issue 34), opened from SERVICE_DATABASE_URL's
// parts. The driver is postgres.js (porsager): callback-scoped transactions with savepoints,
// pipelined queries on one connection, LISTEN/NOTIFY with re-listen after a reconnect, no
// dependencies. The password never comes from the URL (config refuses one): PGPASSWORD, else the
// passfile, read here because postgres.js does not read one.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

export type Sql = postgres.Sql;
/** The handle inside sql.begin (a transaction's queries). */
export type TransactionSql = postgres.TransactionSql;

/** What a connection needs of SERVICE_DATABASE_URL (config's PostgresLocation has these fields). */
export interface PostgresTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string | null;
  readonly sslmode: 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
  readonly passfile: string | null;
  readonly applicationName: string | null;
}

export interface PoolOptions {
  /** Connections at most (SERVICE_DATABASE_POOL_SIZE). */
  readonly max: number;
  /** statement_timeout of every session in milliseconds (SERVICE_DATABASE_STATEMENT_TIMEOUT_MS); 0: none. */
  readonly statementTimeoutMs: number;
  /** The schema the pool's statements name tables in (search_path); absent: the database's default. */
  readonly schema?: string;
  /**
   * idle_in_transaction_session_timeout in milliseconds: a session that stops sending inside a
   * transaction (its process frozen) is ended by the server, and its row locks with it.
   */
  readonly idleInTransactionMs?: number;
  /** 'forever': connections are never recycled (a session lock lives as long as its connection). */
  readonly lifetime?: 'forever';
}

/** libpq's escaping of a passfile field: backslash escapes ':' and '\\'. */
function fields(line: string): string[] {
  const out: string[] = [''];
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) out[out.length - 1] += line[(i += 1)]!;
    else if (c === ':') out.push('');
    else out[out.length - 1] += c;
  }
  return out;
}

/**
 * The password of a passfile (libpq's format: host:port:database:user:password, `*` matches
 * anything, first match wins), or null. A missing file is no password, as for libpq.
 */
export function passfilePassword(file: string, target: PostgresTarget, user: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  // libpq names a socket directory's host "localhost" in the passfile.
  const host = target.host.startsWith('/') ? 'localhost' : target.host;
  const wanted = [host, String(target.port), target.database, user];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const parts = fields(line);
    if (parts.length < 5) continue;
    if (wanted.every((value, i) => parts[i] === '*' || parts[i] === value)) return parts.slice(4).join(':');
  }
  return null;
}

/** The ssl option of postgres.js for a libpq sslmode. */
function ssl(mode: PostgresTarget['sslmode']): postgres.Options<never>['ssl'] {
  switch (mode) {
    case 'disable':
      return false;
    case 'allow':
    case 'prefer':
    case 'require':
      return mode;
    case 'verify-ca':
      // The chain is verified, the host name is not (libpq's verify-ca).
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return 'verify-full';
  }
}

/** Opens (lazily: the first query connects) a pool on the target. */
export function openPostgres(target: PostgresTarget, options: PoolOptions, env = process.env): Sql {
  const user = target.user ?? env.PGUSER ?? 'postgres';
  const passfile = target.passfile ?? env.PGPASSFILE ?? join(homedir(), '.pgpass');
  return postgres({
    host: target.host,
    port: target.port,
    database: target.database,
    user,
    pass: () => env.PGPASSWORD ?? passfilePassword(passfile, target, user) ?? '',
    ssl: ssl(target.sslmode),
    max: options.max,
    ...(options.lifetime === 'forever' ? { max_lifetime: null, idle_timeout: 0 } : {}),
    onnotice: () => {},
    connection: {
      application_name: target.applicationName ?? 'meet',
      statement_timeout: options.statementTimeoutMs,
      ...(options.idleInTransactionMs === undefined
        ? {}
        : { idle_in_transaction_session_timeout: options.idleInTransactionMs }),
      ...(options.schema === undefined ? {} : { search_path: options.schema }),
      // Every acknowledged transition is committed durably before the answer (issue 34 point 3).
      synchronous_commit: 'on',
    },
  });
}

/** postgres.js's own codes for a connection it lost or could not make, and the socket's. */
const connectionCodes = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Whether an error says the database cannot be reached now (the server down, restarting, or
 * the connection cut) rather than that the statement was wrong: a connection failure, class 08
 * (connection exception) or 57P (operator intervention: shutdown, crash, not yet accepting).
 * The request is answered 503 and may be retried; nothing of it was acknowledged.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionCodes.has(code) || /^(08|57P0)/.test(code))) return true;
  // Node's connect to several addresses of a host fails with an AggregateError of each attempt.
  return err instanceof AggregateError && err.errors.some((inner) => isStoreUnavailable(inner));
}
