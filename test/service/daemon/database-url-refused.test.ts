// Issue 34, this release: a daemon told SERVICE_DATABASE_URL=postgres://... refuses to start
// (exit 2, naming the variable) rather than quietly keeping its state in SQLite files of the
// data directory, where a second node would never see it.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { ConfigError } from '../../../src/config/config-error.js';
import { loadConfig } from '../../../src/config/load.js';
import { startDaemon } from '../../../src/daemon/run.js';

t.test('postgres:// is refused at start, before anything is written to the data directory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-pg-refused-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  const config = loadConfig({
    env: {
      SERVICE_DATA_DIR: dataDir,
      SERVICE_DATABASE_URL: 'postgres://meet@127.0.0.1:1/meet',
      SERVICE_MEDIA: 'mesh',
      SERVICE_HTTP_ADDR: '127.0.0.1:0',
      COMPAT_HTTP_ADDR: '127.0.0.1:0',
    },
  });
  const refusal = await startDaemon(config, pino({ level: 'silent' })).then(
    async (daemon) => {
      await daemon.stop();
      return null;
    },
    (err: unknown) => err,
  );
  t.type(refusal, ConfigError);
  t.match((refusal as Error).message, /^SERVICE_DATABASE_URL names PostgreSQL/);
  t.notOk(existsSync(join(dataDir, 'meet.sqlite')), 'no SQLite database made');
  t.same(existsSync(dataDir) ? readdirSync(dataDir) : [], [], 'nothing in the data directory');
});
