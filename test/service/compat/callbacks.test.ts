// Issue 5 point 14: outbound callbacks — the private-address guard (with DNS resolution),
// the queue's retries, no redirects, timeouts, and the recording-ready sender's JWT.
import { jwtVerify } from 'jose';
import t from 'tap';
import { compatAppFor } from '../../helpers/compat-app.js';
import { CallbackQueue, endCallbackUrl, recordingReadyBody } from '../../../src/compat/confapi/callbacks.js';
import {
  isInternalAddress,
  TargetGuard,
  TargetRefused,
  type Resolver,
} from '../../../src/compat/confapi/target-guard.js';
import { assertSuccess, ConfapiClient, logMatch, receiverFor } from '../../helpers/compat.js';
import { MemoryCallbacks, settled } from '../../helpers/memory-callbacks.js';

const quiet = { info: () => {}, warn: () => {} };

const job = (url: string, method: 'GET' | 'POST' = 'GET', body: string | null = null) =>
  ({
    kind: 'meeting_ended',
    tenantId: 'primary',
    internalId: 'int-1',
    method,
    url,
    body,
    contentType: body === null ? null : 'application/x-www-form-urlencoded',
  }) as const;

t.test('internal addresses', async (t) => {
  for (const address of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::7f00:1',
  ]) {
    t.ok(isInternalAddress(address), `${address} is internal`);
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    t.notOk(isInternalAddress(address), `${address} is public`);
  }
  t.ok(isInternalAddress('not-an-ip'), 'anything unparseable counts as internal');
});

// Issue 11 point 4: every IPv6 form that embeds an IPv4 address, in every spelling.
t.test('IPv6 forms embedding an IPv4 address follow the IPv4 rules or are refused whole', async (t) => {
  const internal: [string, string][] = [
    ['::127.0.0.1', 'IPv4-compatible loopback, dotted'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['0:0:0:0:0:0:7f00:1', 'IPv4-compatible loopback, uncompressed'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata address'],
    ['::8.8.8.8', 'IPv4-compatible is deprecated: refused even with a public address'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback, dotted'],
    ['::ffff:0:7f00:1', 'IPv4-translated loopback, hex'],
    ['0:0:0:0:ffff:0:a00:1', 'IPv4-translated private, uncompressed'],
    ['::ffff:0:808:808', 'IPv4-translated is obsolete: refused even with a public address'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'IPv4-mapped, uncompressed and dotted'],
    ['0:0:0:0:0:FFFF:7F00:0001', 'IPv4-mapped, uppercase with leading zeros'],
    ['::FFFF:A9FE:A9FE', 'IPv4-mapped metadata address, uppercase'],
    ['::ffff:c0a8:101', 'IPv4-mapped 192.168.1.1, hex'],
    ['::ffff:100.64.0.1', 'IPv4-mapped shared address space'],
    ['64:ff9b::127.0.0.1', 'NAT64 well-known prefix, loopback dotted'],
    ['64:ff9b::a00:1', 'NAT64 well-known prefix, 10.0.0.1 in hex'],
    ['64:FF9B:0:0:0:0:A9FE:A9FE', 'NAT64 well-known prefix, metadata address uncompressed'],
    ['64:ff9b:1::a00:1', 'NAT64 local-use prefix'],
    ['64:ff9b:1:abcd::808:808', 'NAT64 local-use prefix: the embedded address cannot be located, refused whole'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:808:808::1', '6to4 is deprecated: refused even with a public address'],
    ['fe80::1%eth0', 'a zone index'],
    ['::ffff:127.0.0.1%1', 'a zone index on a mapped address'],
  ];
  for (const [address, what] of internal) t.ok(isInternalAddress(address), `${address}: ${what}`);
  const external: [string, string][] = [
    ['::ffff:5db8:d822', 'IPv4-mapped public address, hex'],
    ['64:ff9b::8.8.8.8', 'NAT64 well-known prefix with a public address (a DNS64 answer)'],
    ['64:ff9b::5db8:d822', 'NAT64 well-known prefix with a public address, hex'],
  ];
  for (const [address, what] of external) t.notOk(isInternalAddress(address), `${address}: ${what}`);
});

t.test('the guard resolves names and checks every address', async (t) => {
  const dns =
    (map: Record<string, string[]>): Resolver =>
    async (hostname) => {
      const list = map[hostname];
      if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  const resolver = dns({
    'public.example': ['93.184.216.34'],
    'rebind.example': ['93.184.216.34', '10.0.0.5'],
    localhost: ['127.0.0.1'],
    'v6.example': ['::1'],
    'intranet.example': ['10.9.9.9'],
    'compat.example': ['93.184.216.34', '::7f00:1'],
    'nat64.example': ['64:ff9b::c0a8:1'],
    'dns64.example': ['64:ff9b::5db8:d822'],
  });
  const guard = new TargetGuard([], resolver);
  const refused = async (url: string, what: string) => t.rejects(guard.resolve(new URL(url)), TargetRefused, what);
  t.same(
    await guard.resolve(new URL('https://public.example/x')),
    { address: '93.184.216.34', family: 4 },
    'a public name: pinned to its address',
  );
  await refused('http://127.0.0.1:8080/cb', 'a loopback literal');
  await refused('http://[::1]/cb', 'an IPv6 loopback literal');
  await refused('http://[::ffff:127.0.0.1]/cb', 'an IPv4-mapped loopback');
  await refused('http://localhost/cb', 'a name resolving to loopback');
  await refused('http://v6.example/cb', 'a name resolving to ::1');
  await refused('http://rebind.example/cb', 'one private address among public ones');
  await refused('http://169.254.169.254/latest/meta-data', 'the cloud metadata address');
  await refused('http://nowhere.example/cb', 'a name that does not resolve');
  await refused('ftp://public.example/cb', 'another scheme');
  await refused('http://user:pw@public.example/cb', 'credentials in the URL');
  await refused('http://[::127.0.0.1]:8080/cb', 'an IPv4-compatible loopback literal');
  await refused('http://[::7f00:1]/cb', 'an IPv4-compatible loopback literal in hex');
  await refused('http://[::ffff:0:127.0.0.1]/cb', 'an IPv4-translated loopback literal');
  await refused('http://[0:0:0:0:0:ffff:7f00:1]/cb', 'an IPv4-mapped loopback, uncompressed');
  await refused('http://[64:ff9b::169.254.169.254]/cb', 'the metadata address behind the NAT64 prefix');
  await refused('http://[2002:a9fe:a9fe::1]/cb', 'the metadata address in a 6to4 address');
  await refused('http://compat.example/cb', 'a name resolving to an IPv4-compatible loopback');
  await refused('http://nat64.example/cb', 'a name resolving to a private address behind NAT64');
  t.same(
    await guard.resolve(new URL('http://dns64.example/x')),
    { address: '64:ff9b::5db8:d822', family: 6 },
    'a DNS64 answer for a public address',
  );

  const allowed = new TargetGuard(['127.0.0.2', 'localhost:8080', '10.9.0.0/16'], resolver);
  t.same(
    await allowed.resolve(new URL('http://127.0.0.2:9/x')),
    { address: '127.0.0.2', family: 4 },
    'an allow-listed IP',
  );
  await t.rejects(allowed.resolve(new URL('http://127.0.0.1:9/x')), TargetRefused, 'another loopback address');
  t.ok(await allowed.resolve(new URL('http://localhost:8080/x')), 'an allow-listed host:port');
  await t.rejects(allowed.resolve(new URL('http://localhost:8081/x')), TargetRefused, 'the same host on another port');
  t.ok(await allowed.resolve(new URL('http://intranet.example/x')), 'a name resolving into an allow-listed CIDR');
  await t.rejects(allowed.resolve(new URL('http://192.168.0.1/x')), TargetRefused, 'outside the allow-list');
  // An allowed IPv4 address covers its IPv4-mapped spelling (the socket reaches that address),
  // not the forms a stack would route elsewhere or not at all.
  t.same(
    await allowed.resolve(new URL('http://[::ffff:127.0.0.2]/x')),
    { address: '::ffff:7f00:2', family: 6 },
    'the IPv4-mapped spelling of an allow-listed IP',
  );
  await t.rejects(
    allowed.resolve(new URL('http://[::127.0.0.2]/x')),
    TargetRefused,
    'the IPv4-compatible spelling of an allow-listed IP',
  );
  await t.rejects(
    allowed.resolve(new URL('http://[::ffff:0:127.0.0.2]/x')),
    TargetRefused,
    'the IPv4-translated spelling of an allow-listed IP',
  );
  await t.rejects(
    allowed.resolve(new URL('http://[64:ff9b::127.0.0.2]/x')),
    TargetRefused,
    'the NAT64 spelling of an allow-listed IP',
  );
});

t.test('the end callback URL keeps its query and gains meetingID and recordingmarks', async (t) => {
  t.equal(
    endCallbackUrl('https://gl.example/meeting_ended', 'room 1'),
    'https://gl.example/meeting_ended?meetingID=room+1&recordingmarks=false',
  );
  t.equal(
    endCallbackUrl('https://gl.example/cb?a=b%20c&d', 'x&y'),
    'https://gl.example/cb?a=b%20c&d&meetingID=x%26y&recordingmarks=false',
  );
});

t.test('the queue: retries, success, no redirects, timeouts, refusals', async (t) => {
  t.test('a failing receiver is retried until it answers 2xx', async (t) => {
    const receiver = await receiverFor(t, 500);
    const store = new MemoryCallbacks();
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet, {
      retryDelaysMs: [0, 60, 60, 60, 60],
    });
    t.teardown(() => queue.stop());
    const started = Date.now();
    const queued = await queue.enqueue(job(`${receiver.url}/end?meetingID=m`));
    t.ok(Date.now() - started < 50, 'enqueue returns at once (never blocks the API call)');
    await receiver.next();
    await receiver.next();
    t.equal(receiver.received.length, 2, 'the first attempt at once, a retry after the delay');
    const done = await settled(store, queued.id, 2000).catch(() => null);
    t.equal(done?.outcome, 'gave_up', 'gives up after the last delay');
    t.equal(done?.attempts, 5, 'five attempts: at once, then the four delays');
    t.equal(receiver.received.length, 5);
  });

  t.test('success ends the job; the first 2xx counts', async (t) => {
    const receiver = await receiverFor(t, 204);
    const store = new MemoryCallbacks();
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet, { retryDelaysMs: [0, 50] });
    t.teardown(() => queue.stop());
    const queued = await queue.enqueue(job(`${receiver.url}/ok`, 'POST', 'signed_parameters=abc'));
    const done = await settled(store, queued.id);
    t.match(done, { outcome: 'delivered', attempts: 1 });
    t.equal(receiver.received[0]?.method, 'POST');
    t.equal(receiver.received[0]?.body, 'signed_parameters=abc');
    t.equal(receiver.received[0]?.headers['content-type'], 'application/x-www-form-urlencoded');
  });

  t.test('a redirect is not followed: it counts as a failure', async (t) => {
    const target = await receiverFor(t, 200);
    const redirector = await receiverFor(t, 302);
    const store = new MemoryCallbacks();
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet, { retryDelaysMs: [0, 30] });
    t.teardown(() => queue.stop());
    const queued = await queue.enqueue(job(`${redirector.url}/moved`));
    const done = await settled(store, queued.id);
    t.match(done, { outcome: 'gave_up', attempts: 2, lastError: /302/ });
    t.equal(target.received.length, 0, 'nothing reached another address');
  });

  t.test('a target that never answers times out and is retried', async (t) => {
    const { createServer } = await import('node:http');
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer(() => {});
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    t.teardown(() => {
      for (const s of sockets) s.destroy();
      silent.close();
    });
    const port = (silent.address() as import('node:net').AddressInfo).port;
    const store = new MemoryCallbacks();
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet, {
      retryDelaysMs: [0, 20],
      timeoutMs: 150,
    });
    t.teardown(() => queue.stop());
    const started = Date.now();
    const done = await settled(store, (await queue.enqueue(job(`http://127.0.0.1:${port}/slow`))).id, 3000);
    t.match(done, { outcome: 'gave_up', attempts: 2 });
    t.ok(Date.now() - started < 1500, 'short timeouts');
  });

  t.test('a target not allowed is refused once and not retried', async (t) => {
    const receiver = await receiverFor(t, 200);
    const store = new MemoryCallbacks();
    const queue = new CallbackQueue(store, new TargetGuard([]), quiet, { retryDelaysMs: [0, 10, 10] });
    t.teardown(() => queue.stop());
    const done = await settled(store, (await queue.enqueue(job(`${receiver.url}/end`))).id);
    t.match(done, { outcome: 'refused', attempts: 1, lastError: /internal address/ });
    t.equal(receiver.received.length, 0, 'nothing was sent to the loopback receiver');
    const bad = await settled(store, (await queue.enqueue(job('not a url'))).id);
    t.equal(bad.outcome, 'refused', 'a URL that does not parse is refused');
  });

  t.test('pending jobs of a previous run are sent on start', async (t) => {
    const receiver = await receiverFor(t, 200);
    const store = new MemoryCallbacks();
    const leftover = await store.insertCallback({
      ...job(`${receiver.url}/left`),
      nextAt: Date.now(),
      createdAt: Date.now(),
    });
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet);
    t.teardown(() => queue.stop());
    queue.start();
    t.match(await settled(store, leftover.id), { outcome: 'delivered' });
  });
});

t.test('recording-ready: signed_parameters is an HS256 JWT of meeting_id and record_id', async (t) => {
  const body = await recordingReadyBody('tenant-secret', 'course 1', 'abc-123');
  const jwt = new URLSearchParams(body).get('signed_parameters') ?? '';
  const { payload, protectedHeader } = await jwtVerify(jwt, new TextEncoder().encode('tenant-secret'), {
    algorithms: ['HS256'],
  });
  t.equal(protectedHeader.alg, 'HS256');
  t.same(payload, { meeting_id: 'course 1', record_id: 'abc-123' });
  await t.rejects(jwtVerify(jwt, new TextEncoder().encode('other-secret')), 'another secret does not verify it');
});

t.test('a real daemon: an IPv6 spelling of an allow-listed loopback receiver gets nothing after end', async (t) => {
  const secret = 'callback-targets-secret-5d1f0a';
  const receiver = await receiverFor(t);
  const d = await compatAppFor(t, { env: { COMPAT_API_SHARED_SECRET: secret, COMPAT_CALLBACK_ALLOW: '127.0.0.1' } });
  const api = new ConfapiClient(d.compatUrl, secret);
  const targets: [string, string][] = [
    ['allowed', `http://127.0.0.1:${receiver.port}/allowed`],
    ['compat', `http://[::127.0.0.1]:${receiver.port}/compat`],
    ['translated', `http://[::ffff:0:127.0.0.1]:${receiver.port}/translated`],
  ];
  for (const [id, url] of targets) {
    assertSuccess(
      t,
      await api.get('create', [
        ['meetingID', id],
        ['moderatorPW', 'mp'],
        ['meta_endCallbackUrl', url],
      ]),
      `create ${id}`,
    );
  }
  // The refused ones end first: had either been sent, it would arrive before the allowed one.
  for (const [id] of targets.slice(1))
    assertSuccess(
      t,
      await api.get('end', [
        ['meetingID', id],
        ['password', 'mp'],
      ]),
      `end ${id}`,
    );
  await logMatch(d, /"reason":"::7f00:1 resolves to ::7f00:1, an internal address[^"]*","msg":"callback refused/);
  await logMatch(
    d,
    /"reason":"::ffff:0:7f00:1 resolves to ::ffff:0:7f00:1, an internal address[^"]*","msg":"callback refused/,
  );
  t.pass('both IPv6 spellings of 127.0.0.1 refused by the guard (not merely unreachable)');
  assertSuccess(
    t,
    await api.get('end', [
      ['meetingID', 'allowed'],
      ['password', 'mp'],
    ]),
    'end allowed',
  );
  const arrived = await receiver.next();
  t.match(arrived.url, /^\/allowed\?meetingID=allowed&/, 'the allow-listed receiver got its end callback');
  await new Promise((r) => setTimeout(r, 300));
  t.same(
    receiver.received.map((r) => r.url.split('?')[0]),
    ['/allowed'],
    'nothing else reached the receiver',
  );
});
