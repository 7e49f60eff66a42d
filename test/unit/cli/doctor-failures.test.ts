import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { issueServerKey, licenceKeyPair } from '../../../src/licence/server-key.js';
import { recordServerKey } from '../../helpers/licence.js';
import { doctorJson, expectFailure, healthy, jitsiSecret, lineOf, tenantApi } from '../../helpers/doctor.js';

t.test('licence: expired, forged, malformed, expiring soon', async (t) => {
  const s = await healthy(t, { light: true });
  const long = new Date(Date.now() - 400 * 86_400_000);
  const record = (key: string) => recordServerKey(s.dataDir, key);

  record(await issueServerKey(s.privateKeyPem, { customer: 'Test School', modules: ['compat'], days: 30 }, long));
  await expectFailure(t, s, 'Compat licence', /expired: the server key expired on/, /ask for a new server key/);

  record(
    await issueServerKey(
      licenceKeyPair().privateKeyPem,
      { customer: 'Test School', modules: ['compat'], days: 365 },
      new Date(),
    ),
  );
  await expectFailure(t, s, 'Compat licence', /forged: /, /SERVICE_LICENSE_PUBLIC_KEY/);

  writeFileSync(join(s.dataDir, 'modules', 'compat.json'), '{"key": 42', { mode: 0o600 });
  await expectFailure(t, s, 'Compat licence', /malformed: .*holds no server key/, /meetctl install compat/);

  record(await issueServerKey(s.privateKeyPem, { customer: 'Test School', modules: ['compat'], days: 10 }, new Date()));
  const soon = await doctorJson(t, s);
  t.equal(soon.result.code, 0, 'a warning does not fail');
  t.match(soon.byId.get('licence'), { status: 'warn', detail: /\(9 days left\)/, hint: /renewed server key/ });

  rmSync(join(s.dataDir, 'modules'), { recursive: true });
  const absent = await doctorJson(t, s);
  t.match(absent.byId.get('licence'), { status: 'skip', detail: /compat module not installed/ });
});

t.test('tenants file: readable by others, broken, a directory', async (t) => {
  const s = await healthy(t, { light: true });
  chmodSync(s.tenantsFile, 0o644);
  await expectFailure(
    t,
    s,
    'Tenants file',
    /is mode 0644: other users can read it/,
    new RegExp(`chmod 600 ${s.tenantsFile}`),
  );

  writeFileSync(s.tenantsFile, `[tenants.acme]\napi_secret = "${tenantApi}\n`, { mode: 0o600 });
  chmodSync(s.tenantsFile, 0o600);
  const broken = await expectFailure(t, s, 'Tenants file', /malformed TOML at line 2/, /fix the file/);
  t.notOk(broken.stdout.includes(tenantApi.slice(0, 20)), 'the broken line is not echoed');
  t.match(lineOf(broken.stdout, 'Secrets')[0], /tenants file could not be read/);

  rmSync(s.tenantsFile);
  mkdirSync(s.tenantsFile);
  await expectFailure(t, s, 'Tenants file', /is a directory, not a file/, /fix the file/);

  rmSync(s.tenantsFile, { recursive: true });
  const { result, byId } = await doctorJson(t, s);
  t.equal(result.code, 0);
  t.match(byId.get('tenants'), { status: 'skip', detail: /does not exist \(the primary tenant alone\)/ });
});

t.test('short secrets are named, never shown', async (t) => {
  const s = await healthy(t, { light: true });
  const shortTenant = 'tiny-tenant-secret';
  const shortPrimary = 'short-primary';
  writeFileSync(
    s.tenantsFile,
    `[tenants.acme]\napi_secret = "${tenantApi}"\n\n[tenants.school-2]\napi_secret = "${shortTenant}"\n`,
    { mode: 0o600 },
  );
  s.env({ COMPAT_API_SHARED_SECRET: shortPrimary });
  const result = await expectFailure(
    t,
    s,
    'Secrets',
    /shorter than 32 bytes: COMPAT_API_SHARED_SECRET \(13 bytes\), tenant school-2 api_secret \(18 bytes\)/,
    /openssl rand -base64 32.*meetctl tenant rotate ID/,
  );
  const json = await doctorJson(t, s);
  for (const output of [result.stdout, result.stderr, json.result.stdout, json.result.stderr]) {
    t.notOk(output.includes(shortTenant), 'the tenant secret is not printed');
    t.notOk(output.includes(shortPrimary), 'the primary secret is not printed');
    t.notOk(output.includes(jitsiSecret), 'nor the others');
  }
});
