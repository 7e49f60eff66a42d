// Issue 34 point 1: SERVICE_DATABASE_URL picks the store (unset or sqlite: is today's SQLite; a
// postgres:// URL is PostgreSQL), a password in it is refused naming the variable and never
// echoed, and malformed URLs, unknown schemes and odd encodings stop the start with a clear error.
import t from 'tap';
import { maskedConfig } from '../../../src/config/load.js';
import { loadEnv as load, refusal } from '../../helpers/config-refusal.js';

t.test(
  'unset, empty or sqlite: is the SQLite store of the data directory; pool and timeout have defaults',
  async (t) => {
    for (const env of [{}, { SERVICE_DATABASE_URL: '' }, { SERVICE_DATABASE_URL: 'sqlite:' }] as Record<
      string,
      string
    >[]) {
      const config = load(env);
      t.same(config.databaseUrl, { kind: 'sqlite' }, JSON.stringify(env));
      t.equal(config.databasePoolSize, 10);
      t.equal(config.databaseStatementTimeoutMs, 5000);
    }
  },
);

t.test('postgres:// and postgresql:// URLs, with sslmode, passfile, a socket directory', async (t) => {
  t.match(load({ SERVICE_DATABASE_URL: 'postgres://meet@db.example.org:6543/meet?sslmode=verify-full' }).databaseUrl, {
    kind: 'postgres',
    host: 'db.example.org',
    port: 6543,
    database: 'meet',
    user: 'meet',
    sslmode: 'verify-full',
    passfile: null,
  });
  t.match(load({ SERVICE_DATABASE_URL: 'postgresql://db.example.org/meet' }).databaseUrl, {
    host: 'db.example.org',
    port: 5432,
    user: null,
    sslmode: 'prefer',
  });
  t.match(load({ SERVICE_DATABASE_URL: 'postgres://meet@/meet?host=/run/postgresql' }).databaseUrl, {
    host: '/run/postgresql',
    user: 'meet',
    database: 'meet',
  });
  t.match(
    load({ SERVICE_DATABASE_URL: 'postgres://m%C3%BCller@[::1]:5433/r%C3%A4ume?passfile=/etc/meet/pgpass' })
      .databaseUrl,
    {
      host: '::1',
      port: 5433,
      user: 'müller',
      database: 'räume',
      passfile: '/etc/meet/pgpass',
    },
  );
  const config = load({
    SERVICE_DATABASE_URL: 'postgres://meet@db/meet',
    SERVICE_DATABASE_POOL_SIZE: '4',
    SERVICE_DATABASE_STATEMENT_TIMEOUT_MS: '250',
  });
  t.equal(config.databasePoolSize, 4);
  t.equal(config.databaseStatementTimeoutMs, 250);
  t.equal(maskedConfig(config).SERVICE_DATABASE_URL, config.databaseUrl, 'printed as read: it holds no secret');
});

t.test(
  'a password in the URL is refused, naming the variable and where a password goes, never echoing it',
  async (t) => {
    for (const url of [
      'postgres://meet:s3cret-pw@db.example.org/meet',
      'postgresql://meet:s3cret-pw@db.example.org:5432/meet?sslmode=require',
      'postgres://meet:@db/meet',
      'postgres://meet:s3cret-pw@/meet?host=/run/postgresql',
      'postgres://meet:s3cret-pw@db/meet?password=s3cret-pw',
    ]) {
      const message = refusal(t, { SERVICE_DATABASE_URL: url });
      t.match(message, /^SERVICE_DATABASE_URL must not hold a password/, url);
      t.match(message, /PGPASSWORD or a passfile/);
      t.notMatch(message, /s3cret/, 'the password is not repeated');
    }
    const viaQuery = refusal(t, { SERVICE_DATABASE_URL: 'postgres://meet@db/meet?password=s3cret-pw' });
    t.match(viaQuery, /^SERVICE_DATABASE_URL has an unknown parameter "password".*PGPASSWORD or a passfile/);
    t.notMatch(viaQuery, /s3cret/);
  },
);

t.test('malformed URLs, unknown schemes and odd encodings stop the start with a clear error', async (t) => {
  const cases: [string, RegExp][] = [
    ['mysql://meet@db/meet', /must be sqlite: or a postgres:\/\/ or postgresql:\/\/ URL \(got scheme "mysql"\)/],
    ['https://db.example.org/meet', /got scheme "https"/],
    ['db.example.org/meet', /got no scheme/],
    ['sqlite:/var/lib/meet/meet.sqlite', /takes sqlite: alone/],
    ['sqlite://x', /takes sqlite: alone/],
    ['postgres:meet', /must be a URL of the form postgres:\/\/user@host:port\/database/],
    ['postgres://meet@db:99999/meet', /is not a valid URL/],
    ['postgres://meet@db:port/meet', /is not a valid URL/],
    ['postgres://meet@db', /names no database/],
    ['postgres://meet@db/', /names no database/],
    ['postgres://meet@db/a/b', /names a database with a slash/],
    ['postgres://meet@/meet', /names no host/],
    ['postgres://meet@db/meet?host=/run/postgresql', /names two hosts/],
    ['postgres://meet@/meet?host=run/postgresql', /absolute path of a unix socket directory/],
    [
      'postgres://meet@db/meet?sslmode=sometimes',
      /sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full/,
    ],
    ['postgres://meet@db/meet?sslmode=require&sslmode=disable', /names the parameter sslmode twice/],
    ['postgres://meet@db/meet?passfile=pgpass', /passfile must be an absolute path/],
    ['postgres://meet@db/meet?options=-c%20x', /unknown parameter "options"/],
    ['postgres://meet@db/meet#frag', /must not have a fragment/],
    ['postgres://meet@db/m%zzeet', /malformed percent-encoding in its database name/],
    ['postgres://me%E0%A4et@db/meet', /malformed percent-encoding in its user name/],
    ['postgres://meet@db/me%00et', /control character in its database name/],
    ['postgres://me%0Aet@db/meet', /control character in its user name/],
    ['postgres://meet@db/meet?application_name=a%07b', /control character in its application_name/],
    ['postgres://meet@db /meet', /must not contain white space or control characters/],
    ['postgres://meet@db/meet\u0000', /must not contain white space or control characters/],
  ];
  for (const [url, expected] of cases) {
    const message = refusal(t, { SERVICE_DATABASE_URL: url });
    t.match(message, /^SERVICE_DATABASE_URL /, `${JSON.stringify(url)}: names the variable`);
    t.match(message, expected, JSON.stringify(url));
  }
});

t.test('pool size and statement timeout are bounded', async (t) => {
  t.match(refusal(t, { SERVICE_DATABASE_POOL_SIZE: '0' }), /^SERVICE_DATABASE_POOL_SIZE /);
  t.match(refusal(t, { SERVICE_DATABASE_POOL_SIZE: 'ten' }), /^SERVICE_DATABASE_POOL_SIZE /);
  t.match(refusal(t, { SERVICE_DATABASE_STATEMENT_TIMEOUT_MS: '10' }), /^SERVICE_DATABASE_STATEMENT_TIMEOUT_MS /);
});
