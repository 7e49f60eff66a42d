// The baseline of `npm run bench`: a bare Fastify route answering the poll's small JSON object,
// in its own process, as a user would write it: `Fastify()` with no logger and no options. The
// engine listener's other options are left out because they change nothing here: its bodyLimit
// (a GET has no body), trustProxy (this route never reads the client's address, and Fastify
// works it out only when asked), return503OnClosing and forceCloseConnections 'idle' (Fastify
// 5's defaults already).
import Fastify from 'fastify';

const [host, port] = (process.env.BASELINE_ADDR ?? '127.0.0.1:0').split(':');
const app = Fastify();
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
