import { pino, type Logger, type LoggerOptions } from 'pino';
import { maskUrl } from './mask-url.js';

/**
 * The one logger of the process: the engine listener uses it and the compat listener a child
 * of it, so both log requests through the same serializer and the same `maskUrl`.
 */
export function loggerOptions(level: string, pretty: boolean): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.secret',
        '*.token',
        '*.access_code',
      ],
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
    ...(pretty
      ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:standard' } } }
      : {}),
  };
}

interface EndableStream {
  end(): void;
  destroy?(): void;
  once(event: string, listener: () => void): unknown;
}

/**
 * Ends the log's stream before the process exits, waiting at most `withinMs`. Why not just
 * process.exit: pino flushes its asynchronous stream synchronously on 'exit', and that flush
 * retries a failed write forever; when standard output is a pipe whose reader died (the
 * daemon's parent was killed), a line still in flight then held the process alive until a
 * second signal killed it. Ending the stream here gives that write its EPIPE asynchronously
 * (pino then stops writing); a stream that does not end in time (a stuck pipe) is destroyed,
 * which drops its last lines rather than hanging the exit.
 */
export function endLog(log: Logger, withinMs: number): Promise<void> {
  const stream = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    Partial<EndableStream> | undefined;
  if (!stream || typeof stream.end !== 'function' || typeof stream.once !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stream.destroy?.();
      resolve();
    }, withinMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.once!('close', done);
    stream.once!('error', done);
    stream.end!();
  });
}
