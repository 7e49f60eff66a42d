// The baseline of `npm run bench`: a bare Fastify route answering a small JSON object, in its
// own process, with the daemon's settings: the same Fastify options as the engine listener
// (src/http/app.ts) and the same pino logger at the same level (src/daemon/logger.ts).
import Fastify from 'fastify';
import { pino } from 'pino';
import { loggerOptions } from '../dist/daemon/logger.js';

const [host, port] = (process.env.BASELINE_ADDR ?? '127.0.0.1:0').split(':');
const app = Fastify({
  loggerInstance: pino(loggerOptions(process.env.SERVICE_LOG_LEVEL ?? 'info', false)),
  bodyLimit: 64 * 1024,
  trustProxy: '127.0.0.1',
  return503OnClosing: true,
  forceCloseConnections: 'idle',
});
app.get('/baseline', async () => ({ status: 'waiting' }));
await app.listen({ host, port: Number(port) });

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
