import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;
interface RouteSchema {
  readonly schema?: unknown;
  readonly method?: string;
  readonly url?: string;
  readonly httpPart?: string;
  readonly httpStatus?: string;
}

/**
 * One of each compiler for the process, so that apps built with the same schemas and options
 * share what is compiled: Fastify's Ajv compiler keeps one Ajv per set of shared schemas and
 * options, and Ajv keeps each compiled schema by its object (the route schemas are module
 * constants, so every app of the process hands in the same objects). A daemon builds one app;
 * the service tests build hundreds in one process, and compiled the same validators for each
 * (a service shard: 13.0 CPU-s against 16.2 before either change).
 */
const validators = AjvCompiler();
const serializers = SerializerSelector();
/** fast-json-stringify keeps nothing: its functions by schema object, then by the factory's options. */
const serialized = new WeakMap<object, Map<string, Serialize>>();

function sharedSerializer(schema: unknown, optionsKey: string, compile: () => Serialize): Serialize {
  if (typeof schema !== 'object' || schema === null) return compile();
  let byOptions = serialized.get(schema);
  if (!byOptions) serialized.set(schema, (byOptions = new Map<string, Serialize>()));
  let serialize = byOptions.get(optionsKey);
  if (!serialize) byOptions.set(optionsKey, (serialize = compile()));
  return serialize;
}

/**
 * Fastify's own compilers (Ajv for what a request sends, fast-json-stringify for what an answer
 * holds), each run when its route first needs it instead of when the app starts. Compiling the
 * engine listener's 216 schemas was about an eighth of a daemon start's CPU (0.89 CPU-s against
 * 0.78), and most routes are never called before a process stops (a test's daemon, a short
 * outage's restart). A route's first request pays its compile (about a millisecond) once;
 * `compileAll` runs every one still waiting, which is what a start used to prove
 * (test/service/http/schemas-compile.test.ts calls it for every route).
 */
export class LazySchemas {
  /** The compiles not yet run, each named for the route it serves. */
  private readonly waiting = new Map<() => unknown, RouteSchema>();
  readonly compilersFactory: CompilersFactory;

  constructor() {
    const factory = {
      buildValidator: (...[externals, options]: Parameters<typeof validators>) => {
        const compile = validators(externals, options);
        return (route: RouteSchema) => this.validator(route, () => compile(route));
      },
      buildSerializer: (...[externals, options]: Parameters<typeof serializers>) => {
        const compile = serializers(externals, options);
        const optionsKey = JSON.stringify([externals, options]);
        return (route: RouteSchema) =>
          this.serializer(route, () => sharedSerializer(route.schema, optionsKey, () => compile(route as never)));
      },
    };
    // Fastify's types ask for Ajv's own function type back (its `schema`, `schemaEnv`), which
    // Fastify never reads: it calls the function and then reads its `errors`.
    this.compilersFactory = factory as unknown as CompilersFactory;
  }

  /** How many compiles are still waiting for their route's first request. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Runs every compile still waiting; a schema that does not compile throws, naming its route. */
  compileAll(): number {
    const all = [...this.waiting];
    for (const [force, route] of all) {
      try {
        force();
      } catch (err) {
        const part = route.httpPart ?? `response ${route.httpStatus ?? ''}`.trim();
        throw new Error(`${route.method ?? ''} ${route.url ?? ''} (${part}): ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    return all.length;
  }

  private once<T>(route: RouteSchema, compile: () => T): () => T {
    let compiled: T | undefined;
    const force = (): T => {
      if (compiled === undefined) {
        compiled = compile();
        this.waiting.delete(force);
      }
      return compiled;
    };
    this.waiting.set(force, route);
    return force;
  }

  private validator(route: RouteSchema, compile: () => Validate): Validate {
    const force = this.once(route, compile);
    // Fastify reads `errors` from the function it called: copied from the compiled one.
    const validate: Validate = (data) => {
      const real = force();
      const result = real(data);
      validate.errors = real.errors;
      return result;
    };
    return validate;
  }

  private serializer(route: RouteSchema, compile: () => Serialize): Serialize {
    const force = this.once(route, compile);
    return (data) => force()(data);
  }
}
