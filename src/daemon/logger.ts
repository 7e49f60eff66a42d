import type { LoggerOptions } from 'pino';

// Tokens travel in query strings (join links ?t=, checksums, embed jwt): mask their values.
const secretParams = /([?&](?:t|token|session|jwt|checksum|password|moderatorPW|attendeePW)=)[^&#]*/gi;

export function maskUrl(url: string): string {
  return url.replace(secretParams, '$1***');
}

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
