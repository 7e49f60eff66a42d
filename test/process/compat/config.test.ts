// The compat module's rows of the settings table, and when its listener runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { compatActive } from '../../../src/compat/module.js';
import { loadConfig } from '../../../src/config/load.js';
import { startDaemon } from '../../helpers/daemon.js';
import { logRecords } from '../../helpers/api.js';
import { installTestLicence } from '../../helpers/licence.js';
import { tempDataDir } from '../../helpers/daemon.js';

const load = (env: Record<string, string>) => loadConfig({ env, configFile: null });

t.test('defaults and parsing', async (t) => {
  const config = load({});
  t.equal(config.compatEnabled, 'auto');
  t.equal(config.compatDefaultRecord, false);
  t.equal(config.compatDefaultGuestPolicy, 'ALWAYS_ACCEPT');
  t.same(config.compatCallbackAllow, []);
  const set = load({
    COMPAT_DEFAULT_RECORD: 'true',
    COMPAT_DEFAULT_GUEST_POLICY: 'ASK_MODERATOR',
    COMPAT_CALLBACK_ALLOW: '127.0.0.1, lms.local:8443,10.0.0.0/8,[::1],fd00::/8',
  });
  t.equal(set.compatDefaultRecord, true);
  t.equal(set.compatDefaultGuestPolicy, 'ASK_MODERATOR');
  t.same(set.compatCallbackAllow, ['127.0.0.1', 'lms.local:8443', '10.0.0.0/8', '[::1]', 'fd00::/8']);
  t.throws(() => load({ COMPAT_CALLBACK_ALLOW: 'http://x/' }), /COMPAT_CALLBACK_ALLOW must list/);
  t.throws(() => load({ COMPAT_CALLBACK_ALLOW: '10.0.0.0/33' }), /COMPAT_CALLBACK_ALLOW must list/);
  t.throws(() => load({ COMPAT_DEFAULT_GUEST_POLICY: 'sometimes' }), /COMPAT_DEFAULT_GUEST_POLICY must be one of/);
  t.throws(() => load({ COMPAT_ENABLED: 'yes' }), /COMPAT_ENABLED must be one of auto, true, false/);
  t.throws(
    () => load({ COMPAT_API_SHARED_SECRET: '   ' }),
    /COMPAT_API_SHARED_SECRET must not be empty/,
    'a blank secret is an error, never "security off"',
  );
  t.throws(
    () => load({ COMPAT_API_SHARED_SECRET: '' }),
    /COMPAT_API_SHARED_SECRET must not be empty/,
    'an empty one too',
  );
  t.equal(config.compatTenantHostSuffix, '', 'by default the host names no tenant');
  t.equal(
    load({ COMPAT_TENANT_HOST_SUFFIX: ' .Meet.Example.org ' }).compatTenantHostSuffix,
    '.meet.example.org',
    'lower-cased, trimmed',
  );
  for (const bad of [
    'meet.example.org',
    '.',
    '..example.org',
    '.example.org.',
    '.exa mple.org',
    '.-a.org',
    '.a-.org',
    '.*.example.org',
    '.example.org:443',
    `.${'a'.repeat(64)}.org`,
  ]) {
    t.throws(
      () => load({ COMPAT_TENANT_HOST_SUFFIX: bad }),
      /COMPAT_TENANT_HOST_SUFFIX must be empty or a host-name suffix starting with a dot/,
      JSON.stringify(bad),
    );
  }
});

t.test('[modules.compat] in the defaults file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-cfg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'room-defaults.toml');
  writeFileSync(
    file,
    '[modules.compat]\ndefault_record = true\ndefault_guest_policy = "ASK_MODERATOR"\ncallback_allow = ["127.0.0.1"]\nenabled = false\n',
  );
  const config = loadConfig({ configFile: file });
  t.equal(config.compatDefaultRecord, true);
  t.equal(config.compatDefaultGuestPolicy, 'ASK_MODERATOR');
  t.same(config.compatCallbackAllow, ['127.0.0.1']);
  t.equal(config.compatEnabled, 'false');
});

t.test('the listener runs when the meeting API is active, or when forced on', async (t) => {
  t.equal(compatActive(load({})), false, 'no secret: off');
  t.equal(compatActive(load({ COMPAT_API_SHARED_SECRET: 'x' })), true, 'secret: on');
  t.equal(compatActive(load({ COMPAT_API_SHARED_SECRET: 'x', COMPAT_ENABLED: 'false' })), false, 'switched off');
  t.equal(compatActive(load({ COMPAT_ENABLED: 'true' })), true, 'switched on without a surface');
  t.equal(
    compatActive(load({ COMPAT_JITSI_APP_ID: 'app', COMPAT_JITSI_APP_SECRET: 'a-gateway-secret-of-32-bytes-xxxx' })),
    true,
    'the embed gateway alone: on',
  );
  t.equal(compatActive(load({ COMPAT_JITSI_ALLOW_ANONYMOUS: 'true' })), true, 'open rooms alone: on');
  t.equal(
    compatActive(load({ COMPAT_JITSI_ALLOW_ANONYMOUS: 'true', COMPAT_ENABLED: 'false' })),
    false,
    'switched off still wins',
  );
  t.throws(
    () => load({ COMPAT_JITSI_APP_SECRET: 'only-31-bytes-long-xxxxxxxxxxxx' }),
    /COMPAT_JITSI_APP_SECRET must hold at least 32 bytes/,
    'a short gateway secret names the variable',
  );
});

t.test('a daemon without the secret opens no compat listener; with it, one that stops with the daemon', async (t) => {
  const plain = await startDaemon({ env: { COMPAT_HTTP_ADDR: '127.0.0.1:0' } });
  t.teardown(() => rmSync(plain.dataDir, { recursive: true, force: true }));
  plain.child.kill('SIGTERM');
  t.equal(await plain.exited, 0);
  t.notOk(
    logRecords(plain).some((r) => /compat listening/.test(String(r.msg))),
    'no compat listener',
  );

  const onData = tempDataDir();
  const licence = await installTestLicence(onData);
  const on = await startDaemon({
    dataDir: onData,
    env: { COMPAT_HTTP_ADDR: '127.0.0.1:0', COMPAT_API_SHARED_SECRET: 'x-secret', ...licence },
  });
  t.teardown(() => rmSync(on.dataDir, { recursive: true, force: true }));
  const line = logRecords(on).find((r) => /compat listening/.test(String(r.msg)));
  t.ok(line, 'compat listening logged before the engine line');
  const url = String(line?.url);
  t.equal((await fetch(`${url}/confapi/api`)).status, 200, 'it answers');
  on.child.kill('SIGTERM');
  t.equal(await on.exited, 0, 'a clean stop');
  await t.rejects(fetch(`${url}/confapi/api`), 'the listener is closed');
});
