// Issue 36 point 2: a knock's access-log line must not leave old-generation garbage behind. On
// Node 20's V8, an object literal that starts with a spread and goes on (`{ ...a, b }`) gets a
// hidden class of its own, made in the old generation; built that way, each knock's line (and the
// request logger's copy of it with the request id) left about 3 KiB there until the next full
// collection: 30 of the 47 MiB that 10,000 open requests added to the daemon's RSS in the bench.
// Lines built key by key share one hidden class, which this test asserts through V8's own check.
import { setFlagsFromString } from 'node:v8';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import t from 'tap';
import { loggerOptions } from '../../../src/daemon/logger.js';
import { engineFamily, installAccessLog, noteEvent } from '../../../src/platform/access-log.js';
import { lazyRequestLogger, withoutRequestLines } from '../../../src/platform/request-logger.js';

setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's own check needs its natives syntax
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

t.test("the knocks' log lines share one hidden class", async (t) => {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  // The daemon's own options (its `req` serializer and redaction), without the varying fields.
  const root = pino({ ...loggerOptions('info', false), base: null, timestamp: false }, stream);
  // What the request logger hands to pino: the objects whose hidden classes matter.
  const handed: object[] = [];
  const info = root.info.bind(root);
  root.info = (obj: object, ...rest: unknown[]) => {
    handed.push(obj);
    return Reflect.apply(info, root, [obj, ...rest]) as void;
  };
  const logger: FastifyBaseLogger = root;
  // And what the access log hands to the request's logger.
  const lines: object[] = [];
  const app = Fastify({
    loggerInstance: logger,
    logController: withoutRequestLines(),
    childLoggerFactory: (logger, bindings, options) => {
      const log = lazyRequestLogger(logger, bindings, options);
      const own = log.info.bind(log);
      log.info = (line: object, ...rest: unknown[]) => {
        lines.push(line);
        return Reflect.apply(own, log, [line, ...rest]) as void;
      };
      return log;
    },
  });
  installAccessLog(app, { policy: 'errors', slowMs: 60_000, recorder: { record() {} } }, engineFamily);
  let n = 0;
  app.post<{ Params: { id: string } }>('/room/:id/knock', async (request, reply) => {
    noteEvent(request, 'knock', { room: request.params.id, request: `request-${n++}` });
    return reply.code(202).send({ status: 'waiting' });
  });
  t.teardown(() => app.close());

  const count = 200;
  for (let i = 0; i < count; i++) {
    const answer = await app.inject({ method: 'POST', url: `/room/class-${i % 7}/knock`, payload: {} });
    if (answer.statusCode !== 202) t.fail(`knock ${i}: ${answer.statusCode}`);
  }
  t.equal(handed.length, count, 'one line a knock');
  t.equal(lines.length, count);
  const sharing = (objects: object[]) => objects.filter((o, i) => i > 0 && haveSameMap(o, objects[i - 1]!)).length;
  t.equal(
    sharing(lines),
    count - 1,
    `the access log's lines share their hidden class (${sharing(lines)} of ${count - 1})`,
  );
  t.equal(
    sharing(handed),
    count - 1,
    `the lines with the request id share theirs (${sharing(handed)} of ${count - 1})`,
  );
  // The line itself is unchanged: the request id first, then the event, its fields, and the request.
  t.match(JSON.parse(written.at(-1)!), {
    reqId: /^req-/,
    event: 'knock',
    room: 'class-3',
    request: `request-${count - 1}`,
    family: 'room.knock',
    route: '/room/:id/knock',
    status: 202,
    req: { method: 'POST', url: '/room/class-3/knock' },
    msg: 'knock',
  });
  t.same(
    Object.keys(JSON.parse(written.at(-1)!) as object),
    ['level', 'reqId', 'event', 'room', 'request', 'family', 'route', 'status', 'ms', 'req', 'msg'],
    'its keys in the same order',
  );
});
