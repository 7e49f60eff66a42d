import { request } from 'node:http';
import t from 'tap';
import { dataDirFor } from '../../helpers/api.js';
import { inProcessDaemonFor } from '../../helpers/in-process-daemon.js';

interface RawAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: any;
}

/** GET with the path sent exactly as written (like curl --path-as-is): fetch would normalise `..`. */
function rawGet(d: { readonly url: string }, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(d.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the assertion on the shape says so
        }
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body });
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${path} in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

// Audit issue 11, point 7: a path the static-file plugin refuses answered 500 and logged an
// error with a stack trace, so anyone could flood the log. They are the client's mistakes.
// The daemon runs in the test's process: real socket (the raw paths need one), the daemon's own log.
t.test('refused static paths answer 4xx in the error shape and log no error', async (t) => {
  const d = await inProcessDaemonFor(t, dataDirFor(t), { SERVICE_LOG_LEVEL: 'debug' });
  const script = '/assets/web/main.js';
  t.equal((await rawGet(d, script)).status, 200, 'an asset is served');
  // The page imports the wire protocol as ../protocol/live.js: the same root rules hold there.
  const protocol = await rawGet(d, '/assets/protocol/live.js');
  t.equal(protocol.status, 200, 'the wire protocol module is served');
  t.match(protocol.contentType, /javascript/, 'as a script');
  t.match(protocol.body, /closeCodes/, 'with the close codes the page reads');

  const cases: [string, string, Record<string, string>, number, string][] = [
    ['traversal out of the web root', '/assets/web/../../package.json', {}, 403, 'forbidden'],
    ['traversal out of the vendor root', '/assets/vendor/selfie/../../../package.json', {}, 403, 'forbidden'],
    ['traversal out of the protocol root', '/assets/protocol/../../package.json', {}, 403, 'forbidden'],
    ['a server file beside the protocol', '/assets/protocol/../http/app.js', {}, 403, 'forbidden'],
    // A NUL is a malformed path, not a forbidden one: the static plugin answers 400.
    ['a NUL in the path', '/assets/web/%00', {}, 400, 'bad_request'],
    ['a directory', '/assets/web/static/', {}, 403, 'forbidden'],
    ['a range beyond the file', script, { range: 'bytes=99999999-' }, 416, 'range_not_satisfiable'],
    ['a failed If-Match', script, { 'if-match': '"not-this-one"' }, 412, 'precondition_failed'],
  ];
  for (const [what, path, headers, status, code] of cases) {
    const answer = await rawGet(d, path, headers);
    t.ok(answer.status === status || (status === 403 && answer.status === 404), `${what}: ${answer.status}`);
    t.match(answer.contentType, /^application\/json/, `${what}: JSON`);
    t.same(Object.keys(answer.body?.error ?? {}).sort(), ['code', 'message'], `${what}: {error: {code, message}}`);
    t.ok(
      answer.body?.error?.code === code || (status === 403 && answer.body?.error?.code === 'not_found'),
      `${what}: ${answer.body?.error?.code}`,
    );
  }
  // A URL that cannot be decoded is the client's mistake too, answered in the same shape.
  const undecodable = await rawGet(d, '/assets/web/%zz?t=kept-out-of-the-answer');
  t.equal(undecodable.status, 400, 'an undecodable URL: 400');
  t.same(
    undecodable.body,
    { error: { code: 'bad_request', message: undecodable.body?.error?.message } },
    'an undecodable URL: {error: {code, message}}',
  );
  t.notMatch(JSON.stringify(undecodable.body), 'kept-out-of-the-answer', 'the answer does not echo the URL');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const loud = d.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
  t.same(loud, [], 'no warning or error in the log');
  t.notOk(
    d.lines.some((line) => line.includes('"stack"')),
    'no stack trace in the log',
  );
  t.ok(
    d.lines.some((line) => line.includes('"msg":"request refused"') && line.includes('"level":20')),
    'refusals are logged at debug',
  );
});
