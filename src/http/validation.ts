import type { FastifyRequest, FastifySchemaValidationError, FastifyServerOptions } from 'fastify';
import type { ErrorCode } from './error-codes.js';

type AjvOptions = NonNullable<Extract<FastifyServerOptions['ajv'], { customOptions?: unknown }>['customOptions']>;

/**
 * How the engine listener's routes are validated: the JSON Schema declared on each route
 * (typebox, in the *-schemas.ts files beside the routes), checked by Fastify's own ajv with
 * these options. Fastify's defaults would change what a client sent: `"600"` would become 600,
 * `["a"]` would become "a", unknown fields would vanish and defaults appear. A field is taken as
 * sent or refused; unknown fields are refused only where the schema says so (a room's body),
 * elsewhere ignored as they always were.
 */
export const validatorOptions: { customOptions: AjvOptions } = {
  customOptions: {
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: false,
    allErrors: false,
    // The refusal a schema names for itself (below); an annotation, not a check.
    keywords: ['refusal'],
  },
};

/** What a refused field answers, when it is not the generic `invalid_field` sentence. */
export interface Refusal {
  readonly code?: ErrorCode;
  readonly message?: string;
  /** On a body's root: the field named when the body is not an object at all (none: no field). */
  readonly field?: string;
  /** On a body's root: what an unknown field is not, as in "colour is not a field of a room". */
  readonly unknownOf?: string;
}

/** Schema options that attach a refusal to a field or a body. */
export function refusal(value: Refusal): { refusal: Refusal } {
  return { refusal: value };
}

interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly SchemaNode[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly refusal?: Refusal;
}

type Part = 'body' | 'querystring' | 'params' | 'headers';

export interface FieldRefusal {
  readonly code: ErrorCode;
  readonly message: string;
  readonly field?: string;
}

const typeWords: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list',
  null: 'null',
};

function describe(node: SchemaNode): string {
  if (node.enum) return `one of ${node.enum.map(String).join(', ')}`;
  if (node.anyOf) return node.anyOf.map(describe).join(' or ');
  const types = typeof node.type === 'string' ? [node.type] : (node.type ?? []);
  return types.map((type) => typeWords[type] ?? type).join(' or ');
}

/** A JSON pointer's first segment, unescaped: the field of the body or query at fault. */
function firstSegment(pointer: string): string {
  const segment = pointer.split('/')[1] ?? '';
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function schemaOf(request: FastifyRequest, part: Part): SchemaNode | undefined {
  const schema = request.routeOptions.schema;
  return (part === 'querystring' ? schema?.querystring : schema?.[part]) as SchemaNode | undefined;
}

/**
 * Maps ajv's first error onto the one error table: the field at fault and the refusal its
 * schema names, else `invalid_field` with a sentence made from the schema.
 */
export function refusalOf(
  request: FastifyRequest,
  part: Part,
  errors: readonly FastifySchemaValidationError[],
): FieldRefusal {
  const root = schemaOf(request, part);
  const first = errors[0];
  const params = (first?.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
  if (first?.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
    const field = params.additionalProperty;
    return {
      code: 'invalid_field',
      message: `${field} is not ${root?.refusal?.unknownOf ? `a field of ${root.refusal.unknownOf}` : 'a known field'}`,
      field,
    };
  }
  const field =
    first?.keyword === 'required' && params.missingProperty !== undefined
      ? params.missingProperty
      : firstSegment(first?.instancePath ?? '');
  if (field === '') {
    const own = root?.refusal;
    return {
      code: own?.code ?? 'invalid_json',
      message: own?.message ?? `the ${part === 'body' ? 'body' : part} must be a JSON object`,
      ...(own?.field ? { field: own.field } : {}),
    };
  }
  const node = root?.properties?.[field];
  const own = node?.refusal;
  const message =
    own?.message ??
    (first?.keyword === 'required' || !node ? `${field} is required` : `${field} must be ${describe(node)}`);
  return { code: own?.code ?? 'invalid_field', message, field };
}
