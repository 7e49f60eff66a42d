// What only the process shows of a compat module refused at start: `meetctl serve` exits 2 and
// says why on its output. The refusals themselves (short secrets, a broken or ambiguous tenants
// file) are checked in-process as ConfigErrors (gateway-entry.test.ts, tenants.test.ts); this
// runs the one chain from the module's ConfigError to the exit code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startDaemon } from '../../helpers/daemon.js';
import { installTestLicence } from '../../helpers/licence.js';

t.test('a broken tenants file at start: exit 2 naming the file, line and column', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-start-refused-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  writeFileSync(file, '[tenants.a]\napi_secret = ');
  const data = join(dir, 'data');
  const licence = await installTestLicence(data);
  await t.rejects(
    startDaemon({
      dataDir: data,
      env: {
        COMPAT_HTTP_ADDR: '127.0.0.1:0',
        COMPAT_API_SHARED_SECRET: 'primary-secret-aaaaaaaaaaaa',
        SERVICE_TENANTS_FILE: file,
        ...licence,
      },
    }),
    /exited \(2\)[\s\S]*SERVICE_TENANTS_FILE[^\n]*:\d+:\d+: malformed TOML/,
  );
});
