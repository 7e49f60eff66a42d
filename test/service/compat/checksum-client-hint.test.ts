// Issue 36 point 3: with 1,000 tenants and no tenant named, the tenant that last signed from a
// client address (as the trusted proxy reports it) is tried first. The hint is only an order:
// another tenant's call from that address is found as that tenant's, a forged checksum from it is
// refused as from anywhere, and a flood of addresses cannot grow the map past its bound.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { SignedCall } from '../../../src/compat/confapi/checksum.js';
import { ConfapiError } from '../../../src/compat/confapi/errors.js';
import { TenantChooser } from '../../../src/compat/confapi/tenant-choice.js';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import { TenantRegistry } from '../../../src/compat/tenants/registry.js';
import { compatAppFor } from '../../helpers/compat-app.js';
import { assertFailed, assertSuccess, fetchAnswer, sign } from '../../helpers/compat.js';

const primary = 'primary-secret-of-the-installation-0123456789';
const tenantIds = Array.from({ length: 1000 }, (_, k) => `school${String(k + 1).padStart(4, '0')}`);
const secretOf = (id: string) => `api-secret-of-${id}-0123456789abcdef`;
const tenantsToml = tenantIds.map((id) => `[tenants.${id}]\napi_secret = "${secretOf(id)}"\n`).join('\n');

t.test('through the listener: a hinted address is tried first, never trusted', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-client-hint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  writeFileSync(file, tenantsToml);
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: primary, SERVICE_TENANTS_FILE: file } });
  // The platform's server as nginx (on loopback, a trusted proxy) reports it.
  const platform = { 'x-forwarded-for': '198.51.100.7' };
  const call = (name: string, query: string, checksum: string) =>
    fetchAnswer(`${d.compatUrl}/confapi/api/${name}?${query}&checksum=${checksum}`, { headers: platform });
  const createQuery = (id: string) => `name=Lesson+${id}&meetingID=${id}&attendeePW=ap&moderatorPW=mp&record=false`;
  const infoAs = (id: string, tenant: string) =>
    call('getMeetingInfo', `meetingID=${id}`, sign('getMeetingInfo', `meetingID=${id}`, secretOf(tenant), 'sha256'));
  const [a, b] = [tenantIds[998]!, tenantIds[420]!];

  assertSuccess(
    t,
    await call('create', createQuery('by-a'), sign('create', createQuery('by-a'), secretOf(a), 'sha256')),
    'A creates from the address (A becomes its hint)',
  );
  assertSuccess(
    t,
    await call('create', createQuery('by-b'), sign('create', createQuery('by-b'), secretOf(b), 'sha256')),
    'B’s call from A’s address is accepted',
  );
  assertSuccess(t, await infoAs('by-b', b), 'and the meeting is B’s');
  assertFailed(t, await infoAs('by-b', a), 'notFound', 'not the hinted A’s');

  // The address's hint is now B: forged checksums from it are refused as from anywhere.
  const forged = createQuery('forged');
  for (const [what, checksum] of [
    ['a secret no tenant holds', sign('create', forged, 'not-a-tenant-secret-0123456789abcdef', 'sha256')],
    ['the hinted tenant’s checksum of another query', sign('create', createQuery('other'), secretOf(b), 'sha256')],
    ['the hinted tenant’s secret with a character changed', sign('create', forged, `${secretOf(b)}x`, 'sha256')],
    ['all zeros', '0'.repeat(64)],
  ] as const)
    assertFailed(t, await call('create', forged, checksum), 'checksumError', `from the hinted address, ${what}`);
  for (const tenant of [a, b])
    assertFailed(t, await infoAs('forged', tenant), 'notFound', `no forged meeting was made for ${tenant}`);

  assertSuccess(
    t,
    await call('create', createQuery('a-again'), sign('create', createQuery('a-again'), secretOf(a), 'sha256')),
    'A from the same address after B',
  );
  assertSuccess(t, await infoAs('a-again', a), 'A’s meeting is A’s');
});

t.test('in process: the order a hint gives, and its bound under a flood of addresses', async (t) => {
  const registry = new TenantRegistry(parseRegistry(tenantsToml, primary), { now: () => new Date() });
  const order = registry.current().apiTenants.map((tenant) => tenant.id);
  const chooser = new TenantChooser(registry, () => [], '');
  const query = 'name=Lesson&meetingID=m&attendeePW=ap&moderatorPW=mp&record=false';
  let tried = 0;
  class CountingCall extends SignedCall {
    override matches(secret: string): boolean {
      tried += 1;
      return super.matches(secret);
    }
  }
  // The primary tenant (COMPAT_API_SHARED_SECRET) comes first: 1,001 tenants in all.
  const secretById = (id: string) => (id === 'primary' ? primary : secretOf(id));
  const choose = (tenant: string, client: string, secret = secretById(tenant)) => {
    tried = 0;
    return chooser.choose(new CountingCall(sign('create', query, secret, 'sha256'), 'create', [query]), {
      pathTenant: undefined,
      host: 'meet.test',
      client,
      meetingId: undefined,
    }).id;
  };
  const platform = '198.51.100.7';
  const last = order[order.length - 1]!;
  t.equal(order.length, 1001, 'the primary tenant and 1,000 others');
  t.equal(choose(last, platform), last, 'the last tenant in the registry’s order is found');
  t.equal(tried, 1001, 'the first call from the address searched every tenant');
  t.equal(choose(last, platform), last, 'its next call');
  t.equal(tried, 1, 'is checked with the hinted tenant’s secret alone');
  t.equal(choose(order[500]!, platform), order[500], 'another tenant from the same address');
  t.equal(tried, 1 + 501, 'is found by the search after the hint failed, the hinted secret not tried twice');
  t.equal(choose(order[500]!, platform), order[500], 'and becomes the hint');
  t.equal(tried, 1, 'one secret tried');
  t.throws(
    () => choose(order[500]!, platform, 'not-a-tenant-secret-0123456789abcdef'),
    new ConfapiError('checksumError'),
    'a forged checksum from the hinted address is refused',
  );
  t.equal(tried, 1001, 'after trying every tenant once, as from any address');

  // 100,000 addresses, each with a valid call (the cheapest to send: the registry's first tenant).
  const capacity = 4096;
  for (let k = 0; k < 100_000; k++) choose(order[0]!, `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`);
  t.equal(chooser.hints.size, capacity, 'the flood leaves the map at its bound');
  t.equal(chooser.hints.get('10.0.0.0'), undefined, 'the oldest addresses went');
  t.equal(chooser.hints.get(`10.1.134.159`), order[0], 'the newest stay');
  t.equal(chooser.hints.get(platform), undefined, 'the platform’s hint was pushed out');
  t.equal(choose(order[500]!, platform), order[500], 'and its next call is still found, by the search');
  t.equal(chooser.hints.size, capacity, 'still at the bound');
});
