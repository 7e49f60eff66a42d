// Issue 5 point 14: outbound callbacks — the private-address guard (with DNS resolution),
// the queue's retries, no redirects, timeouts, and the recording-ready sender's JWT.
import { jwtVerify } from 'jose';
import t from 'tap';
import { CallbackQueue, endCallbackUrl, recordingReadyBody } from '../../src/compat/confapi/callbacks.js';
import type { CallbackJob, CompatStore, NewCallbackJob } from '../../src/compat/confapi/model.js';
import { isInternalAddress, TargetGuard, TargetRefused, type Resolver } from '../../src/compat/confapi/target-guard.js';
import { receiverFor } from '../helpers/compat.js';

const quiet = { info: () => {}, warn: () => {} };

/** The callback part of the store, in memory. */
class MemoryCallbacks implements Pick<CompatStore, 'insertCallback' | 'updateCallback' | 'pendingCallbacks'> {
  readonly jobs = new Map<number, CallbackJob>();
  private next = 1;
  insertCallback(job: NewCallbackJob): CallbackJob {
    const stored: CallbackJob = { ...job, id: this.next++, attempts: 0, doneAt: null, outcome: null, lastError: null };
    this.jobs.set(stored.id, stored);
    return stored;
  }
  updateCallback(job: CallbackJob): void {
    this.jobs.set(job.id, job);
  }
  pendingCallbacks(): CallbackJob[] {
    return [...this.jobs.values()].filter((j) => j.doneAt === null);
  }
}

async function settled(store: MemoryCallbacks, id: number, withinMs = 5000): Promise<CallbackJob> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    const job = store.jobs.get(id)!;
    if (job.doneAt !== null) return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`callback ${id} not settled in ${withinMs} ms`);
}

const job = (url: string, method: 'GET' | 'POST' = 'GET', body: string | null = null) =>
  ({ kind: 'meeting_ended', tenantId: 'primary', internalId: 'int-1', method, url, body, contentType: body === null ? null : 'application/x-www-form-urlencoded' }) as const;

t.test('internal addresses', async (t) => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1']) {
    t.ok(isInternalAddress(address), `${address} is internal`);
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    t.notOk(isInternalAddress(address), `${address} is public`);
  }
  t.ok(isInternalAddress('not-an-ip'), 'anything unparseable counts as internal');
});

t.test('the guard resolves names and checks every address', async (t) => {
  const dns = (map: Record<string, string[]>): Resolver => async (hostname) => {
    const list = map[hostname];
    if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const resolver = dns({
    'public.example': ['93.184.216.34'],
    'rebind.example': ['93.184.216.34', '10.0.0.5'],
    'localhost': ['127.0.0.1'],
    'v6.example': ['::1'],
    'intranet.example': ['10.9.9.9'],
  });
  const guard = new TargetGuard([], resolver);
  const refused = async (url: string, what: string) => t.rejects(guard.resolve(new URL(url)), TargetRefused, what);
  t.same(await guard.resolve(new URL('https://public.example/x')), { address: '93.184.216.34', family: 4 }, 'a public name: pinned to its address');
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

  const allowed = new TargetGuard(['127.0.0.2', 'localhost:8080', '10.9.0.0/16'], resolver);
  t.same(await allowed.resolve(new URL('http://127.0.0.2:9/x')), { address: '127.0.0.2', family: 4 }, 'an allow-listed IP');
  await t.rejects(allowed.resolve(new URL('http://127.0.0.1:9/x')), TargetRefused, 'another loopback address');
  t.ok(await allowed.resolve(new URL('http://localhost:8080/x')), 'an allow-listed host:port');
  await t.rejects(allowed.resolve(new URL('http://localhost:8081/x')), TargetRefused, 'the same host on another port');
  t.ok(await allowed.resolve(new URL('http://intranet.example/x')), 'a name resolving into an allow-listed CIDR');
  await t.rejects(allowed.resolve(new URL('http://192.168.0.1/x')), TargetRefused, 'outside the allow-list');
});

t.test('the end callback URL keeps its query and gains meetingID and recordingmarks', async (t) => {
  t.equal(endCallbackUrl('https://gl.example/meeting_ended', 'room 1'), 'https://gl.example/meeting_ended?meetingID=room+1&recordingmarks=false');
  t.equal(endCallbackUrl('https://gl.example/cb?a=b%20c&d', 'x&y'), 'https://gl.example/cb?a=b%20c&d&meetingID=x%26y&recordingmarks=false');
});

t.test('the queue: retries, success, no redirects, timeouts, refusals', async (t) => {
  t.test('a failing receiver is retried until it answers 2xx', async (t) => {
    const receiver = await receiverFor(t, 500);
    const store = new MemoryCallbacks();
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet, { retryDelaysMs: [0, 60, 60, 60, 60] });
    t.teardown(() => queue.stop());
    const started = Date.now();
    const queued = queue.enqueue(job(`${receiver.url}/end?meetingID=m`));
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
    const queued = queue.enqueue(job(`${receiver.url}/ok`, 'POST', 'signed_parameters=abc'));
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
    const queued = queue.enqueue(job(`${redirector.url}/moved`));
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
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet, { retryDelaysMs: [0, 20], timeoutMs: 150 });
    t.teardown(() => queue.stop());
    const started = Date.now();
    const done = await settled(store, queue.enqueue(job(`http://127.0.0.1:${port}/slow`)).id, 3000);
    t.match(done, { outcome: 'gave_up', attempts: 2 });
    t.ok(Date.now() - started < 1500, 'short timeouts');
  });

  t.test('a target not allowed is refused once and not retried', async (t) => {
    const receiver = await receiverFor(t, 200);
    const store = new MemoryCallbacks();
    const queue = new CallbackQueue(store, new TargetGuard([]), quiet, { retryDelaysMs: [0, 10, 10] });
    t.teardown(() => queue.stop());
    const done = await settled(store, queue.enqueue(job(`${receiver.url}/end`)).id);
    t.match(done, { outcome: 'refused', attempts: 1, lastError: /internal address/ });
    t.equal(receiver.received.length, 0, 'nothing was sent to the loopback receiver');
    const bad = await settled(store, queue.enqueue(job('not a url')).id);
    t.equal(bad.outcome, 'refused', 'a URL that does not parse is refused');
  });

  t.test('pending jobs of a previous run are sent on start', async (t) => {
    const receiver = await receiverFor(t, 200);
    const store = new MemoryCallbacks();
    const leftover = store.insertCallback({ ...job(`${receiver.url}/left`), nextAt: Date.now(), createdAt: Date.now() });
    const queue = new CallbackQueue(store, new TargetGuard(['127.0.0.1']), quiet);
    t.teardown(() => queue.stop());
    queue.start();
    t.match(await settled(store, leftover.id), { outcome: 'delivered' });
  });
});

t.test('recording-ready: signed_parameters is an HS256 JWT of meeting_id and record_id', async (t) => {
  const body = await recordingReadyBody('tenant-secret', 'course 1', 'abc-123');
  const jwt = new URLSearchParams(body).get('signed_parameters') ?? '';
  const { payload, protectedHeader } = await jwtVerify(jwt, new TextEncoder().encode('tenant-secret'), { algorithms: ['HS256'] });
  t.equal(protectedHeader.alg, 'HS256');
  t.same(payload, { meeting_id: 'course 1', record_id: 'abc-123' });
  await t.rejects(jwtVerify(jwt, new TextEncoder().encode('other-secret')), 'another secret does not verify it');
});
