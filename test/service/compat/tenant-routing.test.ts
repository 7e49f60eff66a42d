// Issue 15 point 3: a meeting-API call names its tenant by path (/confapi/{tenant}/api/…) or by
// host ({tenant}.<COMPAT_TENANT_HOST_SUFFIX>) and is checked with that tenant's secret alone;
// the search over every secret is the fallback. A real daemon with 1,000 tenants.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import type { Tap } from '../../helpers/api.js';
import {
  assertFailed,
  assertSuccess,
  buildQuery,
  ConfapiClient,
  parseXml,
  sign,
  type Algorithm,
  type ConfapiAnswer,
  type Pairs,
} from '../../helpers/compat.js';

const tenantCount = 1000;
const primarySecret = 'primary-secret-of-the-routing-test-0000';
/** t1 … t999 beside the primary tenant: 1,000 with meeting-API secrets. */
const secretOf = (n: number) => `secret-of-tenant-${n}-${'x'.repeat(24)}`;
const t777 = secretOf(777);
const t778 = secretOf(778);

/** One request on its own connection, the path sent byte for byte (fetch would normalise `..`). */
function raw(base: string, path: string, headers: Record<string, string> = {}): Promise<ConfapiAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method: 'GET', headers, agent: false, timeout: 10_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          void parseXml(text).then((xml) =>
            resolve({
              status: res.statusCode ?? 0,
              headers: new Headers(res.headers as Record<string, string>),
              text,
              xml,
            }),
          );
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${path} in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** `prefix/call?query&checksum=…` signed with `secret`. */
function signedPath(prefix: string, call: string, pairs: Pairs, secret: string, algorithm: Algorithm = 'sha1'): string {
  const query = buildQuery(pairs, 'plus');
  return `${prefix}/${call}?${query}&checksum=${sign(call, query, secret, algorithm)}`;
}

function meetingIds(answer: ConfapiAnswer): string[] {
  const list = answer.xml?.meetings?.meeting;
  return (list === undefined ? [] : [list].flat()).map((m: { meetingID: string }) => m.meetingID).sort();
}

async function thousandTenants(t: Tap) {
  const dir = mkdtempSync(join(tmpdir(), 'meet-tenant-routing-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tenants.toml');
  const blocks = Array.from(
    { length: tenantCount - 1 },
    (_, k) => `[tenants.t${k + 1}]\napi_secret = "${secretOf(k + 1)}"\n`,
  );
  writeFileSync(file, blocks.join('\n'), { mode: 0o600 });
  // Listening: raw() sends its paths byte for byte (`..`, `%ZZ`), which inject would parse first.
  return compatAppFor(t, {
    env: {
      COMPAT_API_SHARED_SECRET: primarySecret,
      SERVICE_TENANTS_FILE: file,
      COMPAT_TENANT_HOST_SUFFIX: '.meet.test',
    },
    listen: true,
  });
}

t.test('1,000 tenants on a daemon', async (t) => {
  const d = await thousandTenants(t);
  const api = d.compatUrl;

  await t.test('create via the path prefix with tenant 777’s secret: the meeting is 777’s', async (t) => {
    const created = await raw(
      api,
      signedPath(
        '/confapi/t777/api',
        'create',
        [
          ['meetingID', 'by-path'],
          ['name', 'Path room'],
        ],
        t777,
      ),
    );
    assertSuccess(t, created, 'create under /confapi/t777/api');
    assertSuccess(
      t,
      await raw(api, signedPath('/confapi/t777/api', 'getMeetingInfo', [['meetingID', 'by-path']], t777, 'sha256')),
      'its getMeetingInfo, SHA-256',
    );
    t.same(
      meetingIds(await raw(api, signedPath('/confapi/t777/api', 'getMeetings', [], t777))),
      ['by-path'],
      '777 lists it',
    );
    const other = await raw(api, signedPath('/confapi/t778/api', 'getMeetings', [], t778));
    assertSuccess(t, other, '778 lists');
    t.same(meetingIds(other), [], '778 does not see it');
    assertFailed(
      t,
      await raw(api, signedPath('/confapi/t778/api', 'getMeetingInfo', [['meetingID', 'by-path']], t778)),
      'notFound',
      '778 cannot read it',
    );
    t.same(
      meetingIds(await new ConfapiClient(api, t777).get('getMeetings')),
      ['by-path'],
      'the same secret without a tenant in the path finds the same owner',
    );
  });

  await t.test('the legacy path with a tenant, and the primary tenant by name', async (t) => {
    assertSuccess(
      t,
      await raw(api, signedPath('/bigbluebutton/t777/api', 'getMeetings', [], t777)),
      '/bigbluebutton/t777/api',
    );
    assertSuccess(
      t,
      await raw(api, signedPath('/confapi/primary/api', 'getMeetings', [], primarySecret)),
      '/confapi/primary/api with COMPAT_API_SHARED_SECRET',
    );
    assertSuccess(
      t,
      await raw(api, '/confapi/t777/api'),
      'the version root answers under a tenant path (no checksum, nothing about the tenant)',
    );
  });

  await t.test('create via the host name: {tenant}.meet.test', async (t) => {
    const created = await raw(api, signedPath('/confapi/api', 'create', [['meetingID', 'by-host']], t777, 'sha256'), {
      host: 't777.meet.test',
    });
    assertSuccess(t, created, 'create with Host t777.meet.test');
    t.same(
      meetingIds(await raw(api, signedPath('/confapi/api', 'getMeetings', [], t777), { host: 'T777.Meet.Test:8443' })),
      ['by-host', 'by-path'],
      'host names are case-insensitive, the port ignored',
    );
    t.same(
      meetingIds(await raw(api, signedPath('/confapi/api', 'getMeetings', [], t778), { host: 't778.meet.test' })),
      [],
      '778 sees none of them',
    );
    // 127.0.0.1 is a trusted proxy by default: its X-Forwarded-Host is the host the client asked for.
    assertSuccess(
      t,
      await raw(api, signedPath('/confapi/api', 'getMeetings', [], t777), {
        host: 't778.meet.test',
        'x-forwarded-host': 't777.meet.test',
      }),
      'X-Forwarded-Host from the trusted proxy names the tenant, not Host',
    );
    assertSuccess(
      t,
      await raw(api, signedPath('/confapi/api', 'getMeetings', [], t777), { host: 'meet.test' }),
      'the bare name names no tenant: the fallback finds 777',
    );
    assertSuccess(
      t,
      await raw(api, signedPath('/confapi/t777/api', 'getMeetings', [], t777), { host: 't777.meet.test' }),
      'path and host agreeing',
    );
  });

  await t.test('create via the fallback (no tenant named): the signer owns it', async (t) => {
    const secret500 = secretOf(500);
    assertSuccess(
      t,
      await new ConfapiClient(api, secret500, 'sha256').get('create', [['meetingID', 'by-search']]),
      'create under /confapi/api with tenant 500’s secret',
    );
    t.same(
      meetingIds(await raw(api, signedPath('/confapi/t500/api', 'getMeetings', [], secret500))),
      ['by-search'],
      '500 owns it',
    );
    t.same(
      meetingIds(await raw(api, signedPath('/confapi/t777/api', 'getMeetings', [], t777))),
      ['by-host', 'by-path'],
      '777 does not see it',
    );
    assertFailed(
      t,
      await new ConfapiClient(api, 'nobody-has-this-secret').get('getMeetings'),
      'checksumError',
      'a secret of no tenant',
    );
  });

  await t.test('a call that names a tenant is that tenant’s alone', async (t) => {
    const wrong = await raw(api, signedPath('/confapi/t777/api', 'create', [['meetingID', 'stolen']], t778));
    assertFailed(t, wrong, 'checksumError', '/confapi/t777 signed with 778’s secret (valid for 778)');
    assertFailed(
      t,
      await raw(api, signedPath('/confapi/api', 'create', [['meetingID', 'stolen']], t778), { host: 't777.meet.test' }),
      'checksumError',
      'host t777 signed with 778’s secret',
    );
    assertFailed(
      t,
      await raw(api, signedPath('/confapi/t777/api', 'getMeetings', [], t777), { host: 't778.meet.test' }),
      'checksumError',
      'path and host naming two tenants',
    );
    assertFailed(
      t,
      await raw(api, signedPath('/confapi/t777/api', 'getMeetings', [], primarySecret)),
      'checksumError',
      'the primary secret under another tenant’s path',
    );
    const unknown = await raw(api, signedPath('/confapi/t5000/api', 'getMeetings', [], t777));
    assertFailed(t, unknown, 'checksumError', 'an unknown tenant');
    t.equal(unknown.text, wrong.text, 'an unknown tenant answers exactly like a wrong secret');
    assertFailed(
      t,
      await raw(api, signedPath('/confapi/api', 'getMeetings', [], t777), { host: 'nobody.meet.test' }),
      'checksumError',
      'an unknown tenant by host',
    );
    t.same(
      meetingIds(await raw(api, signedPath('/confapi/t778/api', 'getMeetings', [], t778))),
      [],
      'nothing was created for 778',
    );
  });

  await t.test('odd tenant segments are refused cleanly', async (t) => {
    const call = (prefix: string) => signedPath(prefix, 'getMeetings', [], t777);
    const segments = [
      ['t%2F777', 'an encoded slash'],
      ['t777%2F', 'a trailing encoded slash'],
      ['..', 'dot-dot'],
      ['%2E%2E', 'encoded dot-dot'],
      ['.', 'a dot'],
      ['t777%00', 'a NUL'],
      ['t%C3%A9', 'unicode (é)'],
      ['%E2%80%AEt777', 'a bidi override'],
      ['T777', 'another case (ids are case-sensitive in paths)'],
      ['t777%20', 'a trailing space'],
      ['__proto__', '__proto__'],
      ['api', 'a tenant named like the path'],
      ['a'.repeat(65), '65 characters'],
      ['a'.repeat(2000), '2,000 characters'],
    ];
    for (const [segment, what] of segments) {
      const answer = await raw(api, call(`/confapi/${segment}/api`));
      assertFailed(t, answer, 'checksumError', what!);
    }
    for (const [path, what] of [
      [call(`/confapi/${'a'.repeat(5000)}/api`), '5,000 characters (beyond the longest path parameter)'],
      [call('/confapi/%ZZ/api'), 'a malformed escape'],
      [call('/confapi/%FF/api'), 'a byte that is not UTF-8'],
    ] as const) {
      const answer = await raw(api, path);
      t.ok(
        answer.status === 200 || answer.status === 400 || answer.status === 404,
        `${what}: refused with ${answer.status}`,
      );
      t.not(answer.xml?.returncode, 'SUCCESS', `${what}: not served`);
      t.notMatch(answer.text, /aaaaaaaaaa|%ZZ/, `${what}: the path is not echoed`);
    }
    // A host outside the suffix names no tenant (the search finds 777); one inside it names exactly its label.
    for (const host of ['t777.meet.test.evil.org', '[::1]:8088', '.meet.test', 'meet.test.']) {
      assertSuccess(t, await raw(api, call('/confapi/api'), { host }), `host ${host} names no tenant`);
    }
    for (const host of ['t%37%37%37.meet.test', 'x.t777.meet.test', `${'a'.repeat(300)}.meet.test`]) {
      assertFailed(
        t,
        await raw(api, call('/confapi/api'), { host }),
        'checksumError',
        `host ${host.slice(0, 40)} names an unknown tenant`,
      );
    }
    assertSuccess(t, await raw(api, call('/confapi/t777/api')), 'the daemon still serves');
  });
});
