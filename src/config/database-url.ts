// SERVICE_DATABASE_URL (issue 34 point 1): where the durable state lives. Unset or `sqlite:` is
// the SQLite files of the data directory; `postgres://` or `postgresql://` is a PostgreSQL
// database. A password never rides in the URL (it would show in `ps`, the unit file and every
// printed configuration): it comes from PGPASSWORD or a passfile, as libpq's own clients do.
import { InvalidValue } from './parsers.js';

export const sslModes = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof sslModes)[number];

export interface PostgresLocation {
  readonly kind: 'postgres';
  /** A host name, an IP address, or the directory of a unix socket (an absolute path). */
  readonly host: string;
  readonly port: number;
  readonly database: string;
  /** Null: the driver's default (PGUSER, else the user running the service). */
  readonly user: string | null;
  readonly sslmode: SslMode;
  /** libpq's passfile parameter; null: PGPASSFILE, else ~/.pgpass. */
  readonly passfile: string | null;
  readonly applicationName: string | null;
  /** The URL as given (it holds no password), for messages and `meetctl doctor`. */
  readonly url: string;
}

export type DatabaseLocation = { readonly kind: 'sqlite' } | PostgresLocation;

/** libpq's parameters this service reads from the URL's query; any other is refused rather than ignored. */
const knownParameters = ['sslmode', 'passfile', 'host', 'application_name'] as const;

const passwordHelp =
  'must not hold a password (a command line, a unit file and printed settings would show it): give it in PGPASSWORD or a passfile (?passfile=/path, PGPASSFILE, or ~/.pgpass)';

/** A percent-decoded part of the URL, refused when the encoding is malformed or decodes to a control character. */
function decoded(part: string, what: string): string {
  let value: string;
  try {
    value = decodeURIComponent(part);
  } catch {
    throw new InvalidValue(`has a malformed percent-encoding in its ${what}`);
  }
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new InvalidValue(`has a control character in its ${what}`);
  return value;
}

export function databaseUrl(raw: unknown): DatabaseLocation {
  if (typeof raw !== 'string') throw new InvalidValue(`must be a string (got ${JSON.stringify(raw)})`);
  const value = raw.trim();
  if (value === '' || value === 'sqlite:') return { kind: 'sqlite' };
  if (/[\s\u0000-\u001f\u007f]/.test(value))
    throw new InvalidValue('must not contain white space or control characters');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'sqlite')
    throw new InvalidValue('takes sqlite: alone: the SQLite files live in the data directory (SERVICE_DATA_DIR)');
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    const named = scheme === undefined ? 'no scheme' : `scheme ${JSON.stringify(scheme.slice(0, 20))}`;
    throw new InvalidValue(`must be sqlite: or a postgres:// or postgresql:// URL (got ${named})`);
  }
  if (!value.slice(scheme.length + 1).startsWith('//'))
    throw new InvalidValue(`must be a URL of the form ${scheme}://user@host:port/database`);
  // The userinfo is checked before the URL parser sees it, so no message ever echoes a password.
  const authority = value.slice(scheme.length + 3).split(/[/?#]/, 1)[0] ?? '';
  const at = authority.lastIndexOf('@');
  if (at >= 0 && authority.slice(0, at).includes(':')) throw new InvalidValue(passwordHelp);
  // An empty host (postgres://user@/db?host=/run/postgresql, libpq's socket form) is parsed with a stand-in host.
  const emptyHost = /^(?:[^@]*@)?(?::\d*)?$/.test(authority);
  let url: URL;
  try {
    url = new URL(
      emptyHost ? value.replace(`//${authority}`, `//${authority.replace(/^([^@]*@)?/, '$1none')}`) : value,
    );
  } catch {
    throw new InvalidValue(`is not a valid URL (expected ${scheme}://user@host:port/database)`);
  }
  if (url.password !== '') throw new InvalidValue(passwordHelp);
  if (url.hash !== '') throw new InvalidValue('must not have a fragment (#...)');

  const query = new Map<string, string>();
  for (const [key, param] of url.searchParams) {
    if (!(knownParameters as readonly string[]).includes(key))
      throw new InvalidValue(
        `has an unknown parameter ${JSON.stringify(key.slice(0, 40))} (known: ${knownParameters.join(', ')}; a password goes in PGPASSWORD or a passfile)`,
      );
    if (query.has(key)) throw new InvalidValue(`names the parameter ${key} twice`);
    if (/[\u0000-\u001f\u007f]/.test(param)) throw new InvalidValue(`has a control character in its ${key}`);
    query.set(key, param);
  }

  const sslmode = query.get('sslmode') ?? 'prefer';
  if (!(sslModes as readonly string[]).includes(sslmode))
    throw new InvalidValue(
      `sslmode must be one of ${sslModes.join(', ')} (got ${JSON.stringify(sslmode.slice(0, 40))})`,
    );
  const passfile = query.get('passfile') ?? null;
  if (passfile !== null && !passfile.startsWith('/')) throw new InvalidValue('passfile must be an absolute path');

  const socketDir = query.get('host') ?? null;
  if (socketDir !== null && !socketDir.startsWith('/'))
    throw new InvalidValue('host (in the query) must be the absolute path of a unix socket directory');
  const hostname = emptyHost ? '' : url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (hostname !== '' && socketDir !== null)
    throw new InvalidValue('names two hosts: either host:port after // or ?host=/socket/dir, not both');
  const host = socketDir ?? decoded(hostname, 'host');
  if (host === '') throw new InvalidValue('names no host (expected postgres://user@host:port/database)');

  const path = url.pathname.replace(/^\//, '');
  if (path === '') throw new InvalidValue('names no database (expected postgres://user@host:port/database)');
  if (path.includes('/')) throw new InvalidValue('names a database with a slash: the path is one database name');
  const database = decoded(path, 'database name');
  const user = url.username === '' ? null : decoded(url.username, 'user name');
  return Object.freeze({
    kind: 'postgres',
    host,
    port: url.port === '' ? 5432 : Number(url.port),
    database,
    user,
    sslmode: sslmode as SslMode,
    passfile,
    applicationName: query.get('application_name') ?? null,
    url: value,
  });
}
