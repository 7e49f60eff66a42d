// Issue 14, point 2: the embedding script on the compat listener of a real daemon, under
// /external_api.js and /{tenant-or-app-id}/external_api.js (the form @jitsi/react-sdk uses).
import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { compatInProcessFor } from '../../helpers/compat.js';

const frontend = 'https://meet.example.org:8443/base';

const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(url, { method, headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });

t.test('one cacheable script under both paths', async (t) => {
  // The listener runs with the meeting API on; the script does not depend on which surface is active.
  const d = await compatInProcessFor(t, {
    COMPAT_API_SHARED_SECRET: 'external-api-script-secret-0123456789',
    COMPAT_FRONTEND_URL: frontend,
  });
  const plain = await get(`${d.compatUrl}/external_api.js`);
  const body = await plain.text();
  t.equal(plain.status, 200, 'served');
  t.match(plain.headers.get('content-type'), /^application\/javascript; charset=utf-8$/, 'as JavaScript');
  t.equal(plain.headers.get('x-content-type-options'), 'nosniff', 'nosniff');
  t.match(plain.headers.get('cache-control'), /^public, max-age=\d+$/, 'cacheable with a max-age');
  const etag = plain.headers.get('etag') ?? '';
  t.match(etag, /^"[A-Za-z0-9_-]{16,}"$/, 'a strong ETag');
  t.match(body, /JitsiMeetExternalAPI/, 'defines the upstream global');
  t.match(body, /VideoMeetExternalAPI/, 'and the product-named alias');
  t.notMatch(body, /sourceMappingURL/, 'no reference to a source map that is not served');
  t.notMatch(body, /__VIDEOMEET_PAGE_ORIGIN__/, 'the page origin is written in');
  t.match(body, /"https:\/\/meet\.example\.org:8443"/, 'as the origin of COMPAT_FRONTEND_URL (no path)');
  t.notMatch(body, /^\s*(import|export)\s/m, 'a classic script: no import or export');

  for (const tenant of ['acme', 'vpaas-magic-cookie-1234', 'T%C3%A9nant']) {
    const other = await get(`${d.compatUrl}/${tenant}/external_api.js?release=release-1234`);
    const otherBody = await other.text();
    t.equal(other.status, 200, `/${tenant}/external_api.js is served`);
    t.equal(
      createHash('sha256').update(otherBody).digest('hex'),
      createHash('sha256').update(body).digest('hex'),
      `/${tenant}: the same bytes`,
    );
    t.equal(other.headers.get('etag'), etag, `/${tenant}: the same ETag`);
    t.equal(other.headers.get('content-type'), plain.headers.get('content-type'), `/${tenant}: the same type`);
    t.equal(other.headers.get('x-content-type-options'), 'nosniff', `/${tenant}: nosniff`);
  }

  for (const [what, header] of [
    ['the ETag', etag],
    ['a list holding it', `"other", ${etag}`],
    ['its weak form', `W/${etag}`],
    ['*', '*'],
  ] as const) {
    const again = await get(`${d.compatUrl}/acme/external_api.js`, { 'if-none-match': header });
    t.equal(again.status, 304, `If-None-Match with ${what}: 304`);
    t.equal(await again.text(), '', `${what}: no body`);
    t.equal(again.headers.get('etag'), etag, `${what}: the ETag again`);
    t.match(again.headers.get('cache-control'), /max-age/, `${what}: cache headers again`);
  }
  const stale = await get(`${d.compatUrl}/external_api.js`, { 'if-none-match': '"an-old-version"' });
  t.equal(stale.status, 200, 'another ETag gets the script');
  t.equal(await stale.text(), body);

  const head = await get(`${d.compatUrl}/external_api.js`, {}, 'HEAD');
  t.equal(head.status, 200, 'HEAD answers');
  t.equal(head.headers.get('etag'), etag);

  // The script runs: it defines both names as one constructor and nothing else global.
  const window: Record<string, unknown> = { location: { origin: 'https://app.example.com' } };
  runInNewContext(body, {
    window,
    document: { currentScript: { src: `${d.compatUrl}/external_api.js` } },
    URL,
    console,
  });
  t.equal(typeof window.JitsiMeetExternalAPI, 'function', 'window.JitsiMeetExternalAPI is a constructor');
  t.equal(window.VideoMeetExternalAPI, window.JitsiMeetExternalAPI, 'the alias is the same constructor');
  t.same(Object.keys(window).sort(), ['JitsiMeetExternalAPI', 'VideoMeetExternalAPI', 'location'], 'no other global');
});

t.test('abuse: what the path may carry', async (t) => {
  const d = await compatInProcessFor(t, { COMPAT_API_SHARED_SECRET: 'external-api-script-secret-0123456789' });
  const reference = await (await get(`${d.compatUrl}/external_api.js`)).text();
  // Traversal and odd segments never reach a file: the script or a 404, nothing else.
  for (const path of [
    '/..%2F..%2Fetc%2Fpasswd/external_api.js',
    '/%2e%2e/external_api.js',
    `/${'a'.repeat(2000)}/external_api.js`,
    '/<script>/external_api.js',
  ]) {
    const answer = await get(`${d.compatUrl}${path}`);
    const text = await answer.text();
    t.ok(
      answer.status === 200 ? text === reference : [400, 404, 414].includes(answer.status),
      `${path.slice(0, 40)}: ${answer.status}`,
    );
    t.notMatch(text, /root:/, `${path.slice(0, 40)}: no file content`);
    t.notMatch(text, /<script>/, `${path.slice(0, 40)}: the path is not echoed`);
  }
  for (const path of ['/a/b/external_api.js', '/external_api.js/x', '/external_api.jsx', '/external_api.js.map']) {
    t.equal((await get(`${d.compatUrl}${path}`)).status, 404, `${path}: 404`);
  }
  const post = await get(`${d.compatUrl}/external_api.js`, {}, 'POST');
  t.equal(post.status, 404, 'POST is not a route');
  const huge = await get(`${d.compatUrl}/external_api.js`, { 'if-none-match': `"${'x'.repeat(4000)}", `.repeat(2) });
  t.equal(huge.status, 200, 'a long If-None-Match that matches nothing: the script');
});
