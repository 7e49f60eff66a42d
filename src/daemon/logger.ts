import type { LoggerOptions } from 'pino';
import { maskUrl } from './mask-url.js';

/**
 * The one logger of the process: the engine listener uses it and the compat listener a child
 * of it, so both log requests through the same serializer and the same `maskUrl`.
 */
export function loggerOptions(level: string, pretty: boolean): LoggerOptions {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', '*.secret', '*.token', '*.access_code'],
      censor: '***',
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
        id: req.id,
        method: req.method,
        url: maskUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:standard' } } } : {}),
  };
}
