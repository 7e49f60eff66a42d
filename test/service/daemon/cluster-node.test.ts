// Issue 35 stage 1, point 1: a clustered daemon (in this process, on a fresh PostgreSQL database
// and a test-started nats-server) names itself on the meeting-API listener too, and /readyz is
// not ready while NATS is down (the client reconnects by itself when it returns).
import { compatInProcessFor } from '../../helpers/compat.js';
import { clusterTest, startNats } from '../../helpers/nats.js';
import { until } from '../../helpers/net.js';
import { freshDatabase } from '../../helpers/postgres.js';

const readyz = async (url: string) => {
  const answer = await fetch(`${url}/readyz`);
  return { status: answer.status, body: (await answer.json()) as { checks: Record<string, string> } };
};

clusterTest('the meeting-API listener names the node; /readyz follows NATS down and back', async (t) => {
  const nats = await startNats(t);
  const db = await freshDatabase(t);
  const daemon = await compatInProcessFor(t, {
    SERVICE_DATABASE_URL: db.url,
    SERVICE_NATS_URL: nats.url,
    SERVICE_NODE_ID: 'svc-node',
    COMPAT_API_SHARED_SECRET: 'cluster-node-secret-5b1d',
  });
  for (const path of [
    '/bigbluebutton/api',
    '/bigbluebutton/api/getMeetings?checksum=forged',
    '/external_api.js',
    '/nothing',
  ]) {
    const answer = await fetch(`${daemon.compatUrl}${path}`, { headers: { 'x-meet-node': 'forged' } });
    t.equal(answer.headers.get('x-meet-node'), 'svc-node', `compat ${path}`);
  }
  t.match(await readyz(daemon.url), { status: 200, body: { checks: { nats: 'ok' } } });

  await nats.kill();
  await until('/readyz says NATS is down', async () => (await readyz(daemon.url)).status === 503);
  t.match((await readyz(daemon.url)).body, { status: 'not_ready', checks: { nats: 'failing', database: 'ok' } });
  t.ok(
    daemon.lines.some((line) => line.includes(`NATS at 127.0.0.1:${nats.port} lost: reconnecting`)),
    'the loss is logged',
  );

  await nats.restart();
  await until('the client reconnects by itself', async () => (await readyz(daemon.url)).status === 200, 20_000);
  t.match((await readyz(daemon.url)).body, { status: 'ready', checks: { nats: 'ok' } });
});
