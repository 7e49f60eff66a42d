// Issue 15 point 3, in process: the checksum tried secret by secret with the signed text hashed
// once (SignedCall) against the plain rule (checksumMatches), the host's tenant label, the
// bounded per-client hint, and the chooser's order (a hint is never a bypass).
import { createHash } from 'node:crypto';
import t from 'tap';
import { checksumMatches, prefixCopyFromBytes, SignedCall } from '../../../src/compat/confapi/checksum.js';
import { ClientHints } from '../../../src/compat/confapi/client-hints.js';
import { ConfapiError } from '../../../src/compat/confapi/errors.js';
import { hostTenantLabel, TenantChooser } from '../../../src/compat/confapi/tenant-choice.js';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import { TenantRegistry } from '../../../src/compat/tenants/registry.js';

/** The rule written out once more, as the upstream documentation states it. */
const plain = (algorithm: string, text: string, secret: string) =>
  createHash(algorithm)
    .update(text + secret)
    .digest('hex');

t.test(
  'SignedCall gives the plain rule’s answer for every secret, SHA-1 and SHA-256, short and long texts',
  async (t) => {
    const secrets = Array.from({ length: 40 }, (_, k) => `secret-${k}-${'s'.repeat(k)}`);
    const short = 'meetingID=abc&name=Lesson+1';
    const long = `name=Lesson&meetingID=long&${Array.from({ length: 40 }, (_, k) => `meta_key${k}=${'v'.repeat(20)}`).join('&')}`;
    t.ok(
      short.length + 6 < prefixCopyFromBytes && long.length > prefixCopyFromBytes,
      'one text under the copy threshold, one over it: both paths run',
    );
    for (const algorithm of ['sha1', 'sha256', 'sha384', 'sha512']) {
      for (const [textName, text] of [
        ['short', short],
        ['long', long],
      ] as const) {
        for (const signer of [0, 17, 39]) {
          const checksum = plain(algorithm, `create${text}`, secrets[signer]!);
          const call = new SignedCall(checksum, 'create', [text]);
          const matching = secrets.filter((secret) => call.matches(secret));
          t.same(matching, [secrets[signer]], `${algorithm}, ${textName} text: exactly the signer's secret matches`);
          t.same(
            secrets.map((secret) => checksumMatches(checksum, 'create', [text], secret)),
            secrets.map((secret) => call.matches(secret)),
            `${algorithm}, ${textName}: same answers as checksumMatches`,
          );
          t.ok(
            new SignedCall(checksum.toUpperCase(), 'create', [text]).matches(secrets[signer]!),
            `${algorithm}, ${textName}: uppercase hex`,
          );
        }
        // Two candidate texts (a form body as sent, and sorted): either may be the signed one.
        const checksum = plain(algorithm, `join${text}`, secrets[3]!);
        t.ok(
          new SignedCall(checksum, 'join', ['other=1', text]).matches(secrets[3]!),
          `${algorithm}, ${textName}: the second candidate`,
        );
        t.notOk(
          new SignedCall(checksum, 'create', [text]).matches(secrets[3]!),
          `${algorithm}, ${textName}: the call name is signed`,
        );
      }
    }
    const good = plain('sha256', `create${short}`, secrets[0]!);
    for (const [bad, what] of [
      [`${good.slice(0, -1)}g`, 'a character that is not hex'],
      [good.slice(0, -1), 'one digit short'],
      ['', 'empty'],
      ['z'.repeat(40), 'forty non-hex characters'],
    ] as const) {
      const call = new SignedCall(bad, 'create', [short]);
      t.notOk(call.wellFormed, `${what}: not well formed`);
      t.notOk(call.matches(secrets[0]!), `${what}: never matches`);
    }
    const longCall = new SignedCall(plain('sha1', `create${long}`, secrets[5]!), 'create', [long]);
    t.same(
      [longCall.matches(secrets[5]!), longCall.matches(secrets[6]!), longCall.matches(secrets[5]!)],
      [true, false, true],
      'the prepared state is copied, never consumed',
    );
  },
);

t.test('the tenant label of a host', async (t) => {
  const cases: [string, string, string | undefined][] = [
    ['moodle.example.org', '.example.org', 'moodle'],
    ['Moodle.Example.ORG:8443', '.example.org', 'moodle'],
    ['moodle.example.org.', '.example.org', 'moodle'],
    ['a.b.example.org', '.example.org', 'a.b'],
    ['example.org', '.example.org', undefined],
    ['.example.org', '.example.org', undefined],
    ['moodle.example.org.evil.net', '.example.org', undefined],
    ['moodleexample.org', '.example.org', undefined],
    ['[::1]:443', '.example.org', undefined],
    ['10.0.0.1', '.example.org', undefined],
    ['moodle.example.org', '', undefined],
    ['', '.example.org', undefined],
  ];
  for (const [host, suffix, label] of cases)
    t.equal(hostTenantLabel(host, suffix), label, `${JSON.stringify(host)} under ${JSON.stringify(suffix)}`);
});

t.test('client hints: bounded, least recently used first out', async (t) => {
  const hints = new ClientHints(3);
  hints.remember('a', 't1');
  hints.remember('b', 't2');
  hints.remember('c', 't3');
  hints.remember('a', 't1');
  hints.remember('d', 't4');
  t.equal(hints.size, 3, 'never more than its capacity');
  t.equal(hints.get('b'), undefined, 'the least recently used client went');
  t.equal(hints.get('a'), 't1', 'a client seen again stays');
  hints.remember('a', 't9');
  t.equal(hints.get('a'), 't9', 'a new tenant replaces the old hint');
});

t.test('the chooser: named tenants alone, the search with its hint, never a bypass', async (t) => {
  const secret = (id: string) => `api-secret-of-${id}-0123456789`;
  const ids = Array.from({ length: 50 }, (_, k) => `t${k}`);
  const registry = new TenantRegistry(
    parseRegistry(ids.map((id) => `[tenants.${id}]\napi_secret = "${secret(id)}"\n`).join('\n'), secret('primary')),
    {
      now: () => new Date(),
    },
  );
  const chooser = new TenantChooser(registry, () => [], '.meet.test');
  const signedBy = (id: string, query = 'meetingID=m') =>
    new SignedCall(plain('sha256', `create${query}`, secret(id)), 'create', [query]);
  const clues = { pathTenant: undefined, host: 'meet.test', client: '192.0.2.1', meetingId: undefined };
  const refused = (fn: () => unknown, what: string) => {
    try {
      fn();
      t.fail(`${what}: accepted`);
    } catch (err) {
      t.ok(
        err instanceof ConfapiError && err.messageKey === 'checksumError' && err.message === 'Checksums do not match',
        `${what}: checksumError`,
      );
    }
  };

  t.equal(chooser.choose(signedBy('t7'), { ...clues, pathTenant: 't7' }).id, 't7', 'by path');
  t.equal(chooser.choose(signedBy('t7'), { ...clues, host: 'T7.meet.test' }).id, 't7', 'by host');
  refused(
    () => chooser.choose(signedBy('t8'), { ...clues, pathTenant: 't7' }),
    'a named tenant with another tenant’s valid signature',
  );
  refused(() => chooser.choose(signedBy('t7'), { ...clues, pathTenant: 'nobody' }), 'an unknown tenant');
  t.equal(chooser.hints.size, 0, 'named calls leave no hint');

  t.equal(chooser.choose(signedBy('t42'), clues).id, 't42', 'the search finds the signer');
  t.equal(chooser.hints.get('192.0.2.1'), 't42', 'and remembers it for this client');
  refused(
    () => chooser.choose(new SignedCall('0'.repeat(64), 'create', ['meetingID=m']), clues),
    'the hint is no bypass: a wrong checksum from the same client',
  );
  t.equal(chooser.choose(signedBy('t3'), clues).id, 't3', 'another tenant from the same client is still found');
  t.equal(chooser.hints.get('192.0.2.1'), 't3', 'and becomes the hint');

  // Tenants removed from the registry: a hint naming one is skipped, not trusted.
  registry.replace(parseRegistry('[tenants.t42]\napi_secret = "a-new-secret-of-t42-0123456789"\n', secret('primary')));
  refused(() => chooser.choose(signedBy('t3'), clues), 'a hinted tenant that was removed');
  refused(() => chooser.choose(signedBy('t42'), { ...clues, client: '192.0.2.9' }), 'a rotated secret');
});

// Issue 36 point 3: the search over 1,000 tenants reads the clock once (not once per tenant),
// tries each tenant's secret at most once, stops at the first match, and answers as before.
t.test('the search over 1,000 tenants: one clock read, each secret once, stops at the match', async (t) => {
  const secret = (id: string) => `api-secret-of-${id}-0123456789abcdef`;
  const ids = Array.from({ length: 1000 }, (_, k) => `t${k}`);
  let clockReads = 0;
  const registry = new TenantRegistry(
    parseRegistry(
      ids
        .slice(1)
        .map((id) => `[tenants.${id}]\napi_secret = "${secret(id)}"\n`)
        .join('\n'),
      secret('t0'),
    ),
    {
      now: () => {
        clockReads += 1;
        return new Date();
      },
    },
  );
  const order = registry.current().apiTenants.map((tenant) => tenant.id);
  t.equal(order.length, 1000, '1,000 tenants with a meeting-API secret');
  const chooser = new TenantChooser(registry, () => [], '');
  const query = 'name=Lesson+1&meetingID=lesson-1&attendeePW=ap&moderatorPW=mp&record=false';
  let tried: string[] = [];
  class CountingCall extends SignedCall {
    override matches(candidate: string): boolean {
      tried.push(candidate);
      return super.matches(candidate);
    }
  }
  const choose = (algorithm: string, signer: string, client: string) => {
    tried = [];
    clockReads = 0;
    return chooser.choose(new CountingCall(plain(algorithm, `create${query}`, secret(signer)), 'create', [query]), {
      pathTenant: undefined,
      host: 'meet.test',
      client,
      meetingId: undefined,
    }).id;
  };
  for (const [n, algorithm] of ['sha1', 'sha256', 'sha384', 'sha512'].entries()) {
    const last = order[999]!;
    t.equal(choose(algorithm, last, `192.0.2.${n}`), last, `${algorithm}: the last tenant is found`);
    t.equal(tried.length, 1000, `${algorithm}: every secret tried once to reach the last`);
    t.equal(new Set(tried).size, 1000, `${algorithm}: no secret tried twice`);
    t.equal(clockReads, 1, `${algorithm}: the clock read once for the whole search`);
    const middle = order[10]!;
    t.equal(choose(algorithm, middle, `198.51.100.${n}`), middle, `${algorithm}: a tenant early on`);
    t.equal(tried.length, 11, `${algorithm}: the search stops at the first match`);
  }
  // A checksum forged with a secret no tenant has: refused after trying each tenant once.
  tried = [];
  clockReads = 0;
  t.throws(
    () =>
      chooser.choose(
        new CountingCall(plain('sha256', `create${query}`, 'not-a-tenant-secret-0123456789'), 'create', [query]),
        {
          pathTenant: undefined,
          host: 'meet.test',
          client: '203.0.113.1',
          meetingId: undefined,
        },
      ),
    new ConfapiError('checksumError'),
    'no match: checksumError',
  );
  t.equal(tried.length, 1000, 'no match: each tenant tried once');
  t.equal(clockReads, 1, 'no match: the clock read once');
  // Another tenant's valid checksum from a client whose hint names t5: t5 is tried first, then the
  // search finds the true signer (the hint is no bypass), and the hint is tried only once.
  t.equal(choose('sha256', order[5]!, '203.0.113.2'), order[5], 'the hint is set');
  t.equal(choose('sha256', order[7]!, '203.0.113.2'), order[7], 'another tenant’s checksum finds that tenant');
  t.same(tried.slice(0, 1), [secret(order[5]!)], 'the hinted tenant first');
  t.equal(new Set(tried).size, tried.length, 'the hinted tenant not tried again in the scan');
  t.throws(
    () =>
      chooser.choose(new SignedCall(plain('sha256', `create${query}`, secret(order[7]!)), 'create', [query]), {
        pathTenant: order[5],
        host: 'meet.test',
        client: '203.0.113.2',
        meetingId: undefined,
      }),
    new ConfapiError('checksumError'),
    'a tenant named in the path with another tenant’s checksum: refused',
  );
});
