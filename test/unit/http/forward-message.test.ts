// Issue 35 point 3: the message a node forwards to a room's owner, and the trust rule that believes
// its client fields on the inter-node path only. A message is checked field by field on the owner
// (even signed, what is not as a node sends it is refused), a header outside the list never
// crosses, and the inter-node address is trusted as a socket's address (hop 0), never as an
// address a client wrote into X-Forwarded-For.
import t from 'tap';
import {
  decodeAnswer,
  decodeRequest,
  encodeAnswer,
  encodeRequest,
  interNodeAddress,
  MalformedForward,
  trustRule,
  type ForwardedRequest,
} from '../../../src/http/room/forward-message.js';

const knock: ForwardedRequest = {
  method: 'POST',
  url: '/room/lesson-2/knock?lang=de',
  headers: { 'content-type': 'application/json', cookie: 'meet_wait=abc' },
  ip: '203.0.113.7',
  scheme: 'https',
  host: 'meet.example.org',
  hops: 1,
  body: Buffer.from('{"name":"Ada"}'),
};

t.test('a request and an answer cross as sent', async (t) => {
  const decoded = decodeRequest(encodeRequest(knock), 64 * 1024);
  t.same({ ...decoded, body: Buffer.from(decoded.body).toString() }, { ...knock, body: '{"name":"Ada"}' });
  const answer = decodeAnswer(
    encodeAnswer({
      status: 202,
      headers: { 'set-cookie': ['a=1', 'b=2'], 'content-length': '20', 'x-meet-node': 'node-a', 'content-type': 'x' },
      body: Buffer.from('{"status":"waiting"}'),
    }),
  );
  t.same(answer.headers, { 'set-cookie': ['a=1', 'b=2'], 'content-type': 'x' }, 'framing and the owner’s node stay');
  t.equal(answer.status, 202);
});

t.test('what a node never sends is refused, field by field', async (t) => {
  const refused: [string, Partial<ForwardedRequest> | Record<string, unknown>][] = [
    ['a second hop', { hops: 2 }],
    ['no hop', { hops: 0 }],
    ['an ip that is none', { ip: 'meet-cluster-forward' }],
    ['a scheme', { scheme: 'ftp' }],
    ['a method', { method: 'CONNECT' }],
    ['a url without its path', { url: 'http://evil.example/room/x/knock' }],
    ['a protocol-relative url', { url: '//evil.example/room/x' }],
    ['a host with a comma', { host: 'a.example, b.example' }],
    ['a body over the limit', { body: Buffer.alloc(65 * 1024) }],
  ];
  for (const [what, change] of refused)
    t.throws(() => decodeRequest(encodeRequest({ ...knock, ...change }), 64 * 1024), MalformedForward, what);
  t.throws(() => decodeRequest(Buffer.from([0, 0, 0, 9, 1]), 1024), MalformedForward, 'a short head');
  t.throws(() => decodeRequest(Buffer.from('\0\0\0\x02[]'), 1024), MalformedForward, 'a head that is no object');
  const withForwarded = {
    ...knock,
    headers: { ...knock.headers, 'x-forwarded-for': '10.0.0.1', forwarded: 'for=1.2.3.4' },
  };
  t.same(
    Object.keys(decodeRequest(encodeRequest(withForwarded), 1024).headers).sort(),
    ['content-type', 'cookie'],
    'a header outside the list is dropped',
  );
});

t.test('the trust rule: the configured proxies, and the inter-node address as the socket’s only', async (t) => {
  const trust = trustRule(['127.0.0.1', '10.0.0.0/8']);
  t.ok(trust(interNodeAddress, 0), 'a forwarded request’s socket');
  t.notOk(trust(interNodeAddress, 1), 'never as a hop a client wrote');
  t.ok(trust('10.1.2.3', 0), 'a configured block');
  t.ok(trust('::ffff:127.0.0.1', 0), 'an IPv4-mapped configured proxy, as Fastify compiles it');
  t.notOk(trust('198.51.100.9', 0), 'anyone else');
});
