// Issue 36 point 3: a call that names no tenant (no /confapi/{tenant}/api, no tenant host) is
// checked against every tenant's secret, here 1,000 of them. The last tenant's secret is found,
// a secret no tenant holds is refused, and malformed checksums are refused as with one tenant.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { assertFailed, assertSuccess, fetchAnswer, sign, type Algorithm } from '../../helpers/compat.js';

const primary = 'primary-secret-of-the-installation-0123456789';
const tenantIds = Array.from({ length: 1000 }, (_, k) => `school${String(k + 1).padStart(4, '0')}`);
const secretOf = (id: string) => `api-secret-of-${id}-0123456789abcdef`;

t.test('1,000 tenants, no tenant named: the search', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-many-tenants-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  writeFileSync(file, tenantIds.map((id) => `[tenants.${id}]\napi_secret = "${secretOf(id)}"\n`).join('\n'));
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: primary, SERVICE_TENANTS_FILE: file } });
  const last = tenantIds[999]!;
  const url = (call: string, query: string, checksum: string, prefix = '/confapi/api') =>
    `${d.compatUrl}${prefix}/${call}?${query}&checksum=${checksum}`;
  const createQuery = (id: string) => `name=Lesson+${id}&meetingID=${id}&attendeePW=ap&moderatorPW=mp&record=false`;

  t.test('the 1,000th tenant’s secret is found, with every algorithm', async (t) => {
    for (const algorithm of ['sha1', 'sha256', 'sha384', 'sha512'] as Algorithm[]) {
      const query = createQuery(`last-${algorithm}`);
      assertSuccess(
        t,
        await fetchAnswer(url('create', query, sign('create', query, secretOf(last), algorithm))),
        `${algorithm}: create signed by the 1,000th tenant`,
      );
    }
    // The meeting is the signer's: found with its secret, not with another tenant's.
    const info = 'meetingID=last-sha256';
    assertSuccess(
      t,
      await fetchAnswer(url('getMeetingInfo', info, sign('getMeetingInfo', info, secretOf(last), 'sha256'))),
      'the 1,000th tenant sees its meeting',
    );
    assertFailed(
      t,
      await fetchAnswer(url('getMeetingInfo', info, sign('getMeetingInfo', info, secretOf(tenantIds[0]!), 'sha256'))),
      'notFound',
      'the first tenant does not',
    );
    // Named in the path, the same secret is the only one tried: still accepted, and a path naming
    // another tenant refuses it.
    const named = createQuery('last-by-path');
    const checksum = sign('create', named, secretOf(last), 'sha256');
    assertSuccess(t, await fetchAnswer(url('create', named, checksum, `/confapi/${last}/api`)), 'by path');
    assertFailed(
      t,
      await fetchAnswer(url('create', named, checksum, `/confapi/${tenantIds[1]!}/api`)),
      'checksumError',
      'a path naming another tenant',
    );
  });

  t.test('abuse: refused after trying every tenant, or before trying any', async (t) => {
    const query = createQuery('abuse');
    const good = sign('create', query, secretOf(last), 'sha256');
    const reordered = 'meetingID=abuse&name=Lesson+abuse&attendeePW=ap&moderatorPW=mp&record=false';
    const cases: [string, string][] = [
      ['a secret no tenant holds', sign('create', query, 'not-a-tenant-secret-0123456789abcdef', 'sha256')],
      ['the primary secret with a character changed', sign('create', query, `${primary}x`, 'sha256')],
      ['an empty checksum', ''],
      ['63 hex digits', good.slice(0, 63)],
      ['65 hex digits', `${good}0`],
      ['50 hex digits (no algorithm has that length)', good.slice(0, 50)],
      ['64 characters, one not hex', `${good.slice(0, 63)}g`],
      ['the checksum of another call name', sign('join', query, secretOf(last), 'sha256')],
    ];
    for (const [what, checksum] of cases)
      assertFailed(t, await fetchAnswer(url('create', query, checksum)), 'checksumError', what);
    assertFailed(
      t,
      await fetchAnswer(url('create', reordered, good)),
      'checksumError',
      'a checksum over the same parameters in another order',
    );
    assertSuccess(t, await fetchAnswer(url('create', query, good.toUpperCase())), 'upper-case hex is accepted');
    // The call was not made by any of the refused ones: the meeting exists once, created above.
    const info = 'meetingID=abuse';
    const answer = await fetchAnswer(url('getMeetingInfo', info, sign('getMeetingInfo', info, secretOf(last))));
    assertSuccess(t, answer, 'the meeting of the accepted call');
  });
});
