// Issue 36 point 3, in process: the search over tenants' secrets for a call that names no
// tenant. The signed text is hashed once into a state that each secret copies (from
// prefixCopyFromBytes characters on); the answers must be the plain rule's, for every
// algorithm, on both sides of that threshold, with secrets of any characters; the search stops
// at the first match, refuses forged checksums, and sees tenants added and removed by a reload.
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { checksumOf, prefixCopyFromBytes, SignedCall } from '../../../src/compat/confapi/checksum.js';
import { ConfapiError } from '../../../src/compat/confapi/errors.js';
import { TenantChooser } from '../../../src/compat/confapi/tenant-choice.js';
import { parseRegistry } from '../../../src/compat/tenants/parse.js';
import { TenantRegistry } from '../../../src/compat/tenants/registry.js';

const algorithms = ['sha1', 'sha256', 'sha384', 'sha512'] as const;

/** The rule as the upstream documentation states it, written out with createHash. */
const plain = (algorithm: string, text: string, secret: string) =>
  createHash(algorithm)
    .update(text + secret, 'utf8')
    .digest('hex');

/** A query of exactly `length` characters once `call` is put before it. */
const queryOf = (call: string, length: number) => {
  const head = 'meetingID=m1&name=';
  return head + 'x'.repeat(length - call.length - head.length);
};

/** Secrets no test would type: non-ASCII, TOML escapes, query syntax, white space inside. */
const oddSecrets = [
  'päss wörd & = ? # % + / ; "quoted" \\back\\ 0123456789',
  'секрет-密钥-🔑-𝄞-ünïcödé-0123456789abcdefgh',
  '%41%42%43 not decoded, +plus+ stays, \t tab inside',
];
const tomlString = (s: string) => JSON.stringify(s); // JSON's escapes are valid TOML basic-string escapes

t.test('a copied hash state answers as the plain rule: every algorithm, both sides of the threshold', async (t) => {
  const secrets = [...oddSecrets, 'plain-secret-0123456789abcdefghijklmnop', randomBytes(32).toString('base64url')];
  const lengths = [40, prefixCopyFromBytes - 1, prefixCopyFromBytes, prefixCopyFromBytes + 1, 3000];
  for (const algorithm of algorithms) {
    for (const length of lengths) {
      const query = queryOf('create', length);
      t.equal(`create${query}`.length, length, 'the signed text has the length meant');
      for (const [k, signer] of secrets.entries()) {
        const checksum = plain(algorithm, `create${query}`, signer);
        t.equal(checksumOf(algorithm, 'create', query, signer), checksum, `${algorithm}, ${length}: checksumOf`);
        const call = new SignedCall(checksum, 'create', [query]);
        t.same(
          secrets.map((secret) => call.matches(secret)),
          secrets.map((_, j) => j === k),
          `${algorithm}, ${length} characters, secret ${k}: the signer's secret alone matches`,
        );
        t.ok(call.matches(signer), `${algorithm}, ${length}: the state is copied, not used up`);
        const forged = new SignedCall(plain(algorithm, `create${query}x`, signer), 'create', [query]);
        t.notOk(forged.matches(signer), `${algorithm}, ${length}: a checksum over another text`);
      }
    }
  }
});

/** A registry of `count` tenants t0…, t0 being the primary one; the secret of t5 is odd. */
function registryOf(count: number, secretOf: (id: string) => string) {
  const file = Array.from({ length: count - 1 }, (_, k) => `t${k + 1}`)
    .map((id) => `[tenants.${id}]\napi_secret = ${tomlString(secretOf(id))}\n`)
    .join('\n');
  return parseRegistry(file, secretOf('t0'));
}

t.test('the search over 1,000 tenants: first, last, none; forged checksums; odd secrets', async (t) => {
  const secretOf = (id: string) => (id === 't5' ? oddSecrets[0]! : `secret-of-${id}-0123456789abcdefghijkl`);
  const registry = new TenantRegistry(registryOf(1000, secretOf), { now: () => new Date() });
  const order = registry.current().apiTenants.map((tenant) => (tenant.id === 'primary' ? 't0' : tenant.id));
  const chooser = new TenantChooser(registry, () => [], '');
  let tried: string[] = [];
  class CountingCall extends SignedCall {
    override matches(candidate: string): boolean {
      tried.push(candidate);
      return super.matches(candidate);
    }
  }
  let client = 0;
  /** The tenant chosen, or the error's key; each call from a new address, so no hint helps. */
  const choose = (checksum: string, query: string) => {
    tried = [];
    try {
      const id = chooser.choose(new CountingCall(checksum, 'create', [query]), {
        pathTenant: undefined,
        host: 'meet.test',
        client: `192.0.2.${++client}`,
        meetingId: undefined,
      }).id;
      return id === 'primary' ? 't0' : id;
    } catch (err) {
      if (err instanceof ConfapiError) return err.messageKey;
      throw err;
    }
  };
  for (const algorithm of algorithms) {
    for (const length of [120, 600]) {
      const query = queryOf('create', length);
      const by = (id: string) => plain(algorithm, `create${query}`, secretOf(id));
      const how = `${algorithm}, ${length} characters`;
      t.equal(choose(by(order[0]!), query), order[0], `${how}: the first tenant`);
      t.equal(tried.length, 1, `${how}: one secret tried for the first tenant`);
      t.equal(choose(by(order[999]!), query), order[999], `${how}: the last tenant`);
      t.equal(tried.length, 1000, `${how}: each secret tried once to reach the last`);
      t.equal(choose(by('t5'), query), 't5', `${how}: the tenant whose secret has odd characters`);
      t.equal(tried.length, order.indexOf('t5') + 1, `${how}: the search stopped at it`);
      t.equal(choose(plain(algorithm, `create${query}`, 'nobody-has-this-secret-0123456789'), query), 'checksumError');
      t.equal(tried.length, 1000, `${how}: a secret no tenant holds is refused after each secret once`);
    }
  }
  // Forged: the right length of hex for each algorithm, signed by nobody.
  const query = queryOf('create', 300);
  for (const digits of [40, 64, 96, 128]) {
    t.equal(choose(randomBytes(digits / 2).toString('hex'), query), 'checksumError', `${digits} random hex digits`);
    t.equal(tried.length, 1000, `${digits} random hex digits: each secret tried once, then refused`);
  }
  // Forged: a length no algorithm has, or not hex: refused before any secret is tried.
  const good = plain('sha256', `create${query}`, secretOf('t7'));
  for (const [checksum, what] of [
    ['', 'empty'],
    [good.slice(0, -1), 'one digit short'],
    [`${good}0`, 'one digit long'],
    [good + good.slice(0, 8), '72 digits, a length no algorithm has'],
    ['f'.repeat(4096), '4,096 digits'],
    [`${good.slice(0, -1)}g`, 'a character that is not hex'],
    [' '.repeat(64), '64 spaces'],
  ] as const) {
    t.equal(choose(checksum, query), 'checksumError', `${what}: checksumError`);
    t.equal(tried.length, 0, `${what}: no secret tried`);
  }
  t.equal(choose(good.toUpperCase(), query), 't7', 'upper-case hex is the same checksum');
});

t.test('tenants added, removed and re-keyed by a reload are seen by the next call', async (t) => {
  const secretOf = (id: string) => `secret-of-${id}-0123456789abcdefghijkl`;
  const registry = new TenantRegistry(registryOf(100, secretOf), { now: () => new Date() });
  const chooser = new TenantChooser(registry, () => [], '');
  const query = queryOf('create', 400);
  const choose = (secret: string, client = '198.51.100.1') => {
    try {
      return chooser.choose(new SignedCall(plain('sha256', `create${query}`, secret), 'create', [query]), {
        pathTenant: undefined,
        host: 'meet.test',
        client,
        meetingId: undefined,
      }).id;
    } catch (err) {
      if (err instanceof ConfapiError) return err.messageKey;
      throw err;
    }
  };
  const newcomer = 'a-newcomer-secret-ÄÖÜ-0123456789abcdef';
  t.equal(choose(newcomer), 'checksumError', 'a secret no tenant has yet');
  t.equal(choose(secretOf('t42')), 't42', 't42 signs (and becomes this address’s hint)');

  const file = (entries: readonly (readonly [string, string])[]) =>
    entries.map(([id, secret]) => `[tenants.${id}]\napi_secret = ${tomlString(secret)}\n`).join('\n');
  const rest = Array.from({ length: 99 }, (_, k) => [`t${k + 1}`, secretOf(`t${k + 1}`)] as const);
  registry.replace(parseRegistry(file([...rest, ['late', newcomer]]), secretOf('t0')));
  t.equal(choose(newcomer), 'late', 'a tenant added by a reload is found by the next call');
  t.equal(choose(newcomer, '198.51.100.2'), 'late', 'from another address too');

  registry.replace(parseRegistry(file(rest.filter(([id]) => id !== 't42')), secretOf('t0')));
  t.equal(choose(secretOf('t42')), 'checksumError', 'a tenant removed by a reload no longer signs');
  t.equal(choose(newcomer), 'checksumError', 'nor does the one the reload left out');
  t.equal(choose(secretOf('t43')), 't43', 'the others still do');

  const rekeyed = rest.map(([id, secret]) => [id === 't43' ? 't43-renamed' : id, secret] as const);
  registry.replace(parseRegistry(file(rekeyed), secretOf('t0')));
  t.equal(choose(secretOf('t43')), 't43-renamed', 'a secret moved to another tenant id answers as that id');
});
