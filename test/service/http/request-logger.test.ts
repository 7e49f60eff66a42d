import t from 'tap';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { lazyRequestLogger } from '../../../src/platform/request-logger.js';

/** A real pino logger writing into an array, and how many children were made of it. */
function rootLogger(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n'))
        if (text) lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  const root = pino({ level, base: null, timestamp: false }, stream);
  let children = 0;
  // The parent handed to the factory counts its children; each is a real pino child of `root`.
  const parent = Object.create(root) as typeof root;
  parent.child = ((...args: Parameters<typeof root.child>) => {
    children += 1;
    return root.child(...args);
  }) as typeof root.child;
  return { root: parent as unknown as FastifyBaseLogger, lines, children: () => children };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

t.test('a request that writes no line makes no child logger', async (t) => {
  const { root, children } = rootLogger();
  const log = lazyRequestLogger(root, { reqId: 'req-1' }, {});
  t.equal(children(), 0, 'nothing made when the request starts');
  t.equal(log.level, 'info', 'the level is read without making it');
  t.equal(children(), 0);
});

t.test('its lines are those of the pino child Fastify would have made', async (t) => {
  const lazy = rootLogger();
  const eager = rootLogger();
  const log = lazyRequestLogger(lazy.root, { reqId: 'req-7' }, {});
  const made = eager.root.child({ reqId: 'req-7' }, {});
  for (const logger of [log, made]) {
    logger.info({ status: 404, family: 'room.waiting' }, 'request refused');
    logger.warn('slow request');
    logger.error({ err: new Error('disk full') }, 'server error');
    logger.debug('not at info');
  }
  await flush();
  t.equal(lazy.lines.length, 3);
  t.same(lazy.lines, eager.lines, 'the same lines, request id included');
  t.match(lazy.lines[0], { reqId: 'req-7', status: 404, msg: 'request refused', level: 30 });
  t.equal(lazy.children(), 1, 'one child, made on the first line and reused');
});

t.test('a child of it and a level set on it reach the real child', async (t) => {
  const { root, lines } = rootLogger();
  const log = lazyRequestLogger(root, { reqId: 'req-9' }, {});
  log.level = 'debug';
  log.debug('now written');
  log.child({ socket: 'live' }).info('from the live socket');
  await flush();
  t.match(lines, [
    { reqId: 'req-9', msg: 'now written', level: 20 },
    { reqId: 'req-9', socket: 'live', msg: 'from the live socket' },
  ]);
  t.equal(log.level, 'debug');
});

t.test('a level given for the route is the level before any line', async (t) => {
  const { root, children } = rootLogger('info');
  t.equal(lazyRequestLogger(root, { reqId: 'req-2' }, { level: 'warn' }).level, 'warn');
  t.equal(children(), 0);
});
