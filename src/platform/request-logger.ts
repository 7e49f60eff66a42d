import { LogController, type FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger whose pino child (the process logger with the request's id bound) is made
 * on the first line the request writes. Fastify makes that child for every request, about 2 µs
 * of pino work; at the default access log (access-log.ts) nearly no request writes a line, so
 * a poll paid it for nothing. The lines are the same: same parent, bindings and options.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  private write(method: Method, args: unknown[]): void {
    const [first, ...rest] = args;
    // A line with an object first (the access log's) needs no child at all: the parent writes the
    // bindings as the object's first fields, where the child would have put them: the same line.
    if (this.made === null && Object.keys(this.options).length === 0 && isPlainObject(first)) {
      const parent = this.parent;
      // Object.assign, not `{ ...bindings, ...first }`: on Node 20 that literal makes a hidden class
      // per line in the old generation (see lineObject in access-log.ts).
      Reflect.apply(parent[method], parent, [Object.assign({}, this.bindings, first), ...rest]);
      return;
    }
    const logger = this.real();
    Reflect.apply(logger[method], logger, args);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Fastify's `childLoggerFactory` for both listeners. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options);
}

/**
 * Fastify's own request lines (incoming, completed) switched off: the access log (access-log.ts)
 * writes the lines an operator reads. Fastify 5.12 takes this as a log controller; its
 * top-level `disableRequestLogging` is deprecated and warned about at every start.
 */
export function withoutRequestLines(): LogController {
  return new LogController({ disableRequestLogging: true });
}
