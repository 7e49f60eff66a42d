// Issue 34 point 1: the PostgreSQL password comes from PGPASSWORD or a passfile, never the URL.
// postgres.js reads no passfile, so ours reads libpq's format: host:port:database:user:password,
// `*` for any, backslash escaping ':' and '\', the first matching line wins, a socket is localhost.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { passfilePassword, type PostgresTarget } from '../../../src/platform/postgres.js';

const target: PostgresTarget = {
  host: 'db.example.org',
  port: 5432,
  database: 'meet',
  user: 'meet',
  sslmode: 'prefer',
  passfile: null,
  applicationName: null,
};

t.test('the first line matching host, port, database and user gives the password', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-pgpass-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'pgpass');
  writeFileSync(
    file,
    [
      '# comment',
      'other.example.org:5432:meet:meet:wrong-host',
      'db.example.org:5433:meet:meet:wrong-port',
      'db.example.org:5432:meet:meet:pa\\:ss\\\\word:with-colon',
      '*:*:*:meet:too-late',
      'localhost:5432:meet:admin:socket-pw',
      '*:*:*:*:anyone',
      '',
    ].join('\n'),
  );
  t.equal(passfilePassword(file, target, 'meet'), 'pa:ss\\word:with-colon', 'escapes undone, later colons kept');
  t.equal(
    passfilePassword(file, { ...target, host: '/run/postgresql' }, 'admin'),
    'socket-pw',
    'a socket is localhost',
  );
  t.equal(passfilePassword(file, { ...target, host: 'elsewhere' }, 'meet'), 'too-late', 'wildcards');
  t.equal(passfilePassword(file, { ...target, host: 'elsewhere' }, 'nobody'), 'anyone');
  t.equal(passfilePassword(join(dir, 'missing'), target, 'meet'), null, 'no file: no password');
});
