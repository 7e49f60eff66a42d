import type { FastifyInstance } from 'fastify';
import { serviceVersion } from '../../config/version.js';
import type { ReadinessReport } from '../../engine/health/readiness.js';

export const serviceName = 'meeting-service';

/**
 * GET /healthz (the process answers) and GET /readyz (it can take traffic) for supervisors,
 * load balancers and the container HEALTHCHECK: no token, no secrets, never cached.
 */
export function healthRoutes(
  readiness: () => Promise<ReadinessReport>,
  /** A clustered node's id and the ids it sees alive (issue 35); absent on a single node. */
  cluster?: () => Promise<Record<string, unknown>>,
) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/healthz', async (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ status: 'ok', service: serviceName, version: serviceVersion }),
    );
    app.get('/readyz', async (_request, reply) => {
      const [{ ready, checks }, view] = await Promise.all([readiness(), cluster?.().catch(() => null)]);
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ready' : 'not_ready', checks, ...(view ? { cluster: view } : {}) });
    });
  };
}
