import type { FastifyInstance } from 'fastify';
import { serviceVersion } from '../../config/version.js';
import type { ReadinessReport } from '../../engine/health/readiness.js';

export const serviceName = 'meeting-service';

/**
 * GET /healthz (the process answers) and GET /readyz (it can take traffic) for supervisors,
 * load balancers and the container HEALTHCHECK: no token, no secrets, never cached.
 */
export function healthRoutes(readiness: () => Promise<ReadinessReport>) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/healthz', async (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ status: 'ok', service: serviceName, version: serviceVersion }),
    );
    app.get('/readyz', async (_request, reply) => {
      const { ready, checks } = await readiness();
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ready' : 'not_ready', checks });
    });
  };
}
