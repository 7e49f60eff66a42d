import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { LeaseLostError } from '../engine/cluster/leases.js';
import { EngineError } from '../engine/errors.js';
import { TooManyAttemptsError } from '../engine/waiting/attempt-limiter.js';
import { isStoreUnavailable } from '../platform/postgres.js';
import type { ErrorCode, HttpErrorCode } from './error-codes.js';
import { refusalOf } from './validation.js';

/** The one table of the engine listener: a code always answers with the same status. */
export const statusByCode: Readonly<Record<ErrorCode, number>> = {
  invalid_field: 400,
  invalid_json: 400,
  bad_request: 400,
  unauthorized: 401,
  sign_in_failed: 401,
  participant_not_found: 401,
  access_code_invalid: 403,
  barred: 403,
  not_moderator: 403,
  join_token_invalid: 403,
  guest_denied: 403,
  subgroup_closed: 403,
  forbidden: 403,
  csrf_refused: 403,
  account_disabled: 403,
  sso_email_unverified: 403,
  sso_domain_not_allowed: 403,
  sso_account_unknown: 403,
  sso_state_invalid: 400,
  sso_response_invalid: 400,
  sso_unavailable: 502,
  room_not_found: 404,
  token_not_found: 404,
  account_not_found: 404,
  request_not_found: 404,
  meeting_not_found: 404,
  not_found: 404,
  room_exists: 409,
  token_exists: 409,
  account_exists: 409,
  request_not_waiting: 409,
  waiting_room_forced: 409,
  waiting_room_unavailable: 409,
  waiting_room_mode_fixed: 409,
  link_invalid: 410,
  precondition_failed: 412,
  body_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  room_elsewhere: 421,
  lease_lost: 421,
  too_many_attempts: 429,
  too_many_knocks: 429,
  too_many_waiting: 429,
  waiting_room_full: 429,
  too_many_sign_ins: 429,
  internal_error: 500,
  store_unavailable: 503,
  owner_unreachable: 503,
};

export class HttpError extends Error {
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

/** Fastify's own framing errors, named in our vocabulary. */
const fastifyCodes: Readonly<Record<string, HttpErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

const fastifyMessages: Readonly<Partial<Record<HttpErrorCode, string>>> = {
  body_too_large: 'the body is larger than 64 KiB',
  unsupported_media_type: 'Content-Type must be application/json',
  invalid_json: 'the body is not valid JSON',
  bad_request: 'the request cannot be served',
  forbidden: 'this path is not served',
  not_found: 'nothing is served at this path',
  precondition_failed: 'a precondition of the request does not hold',
  range_not_satisfiable: 'the requested range lies outside the file',
};

/**
 * Client errors that plugins raise with an HTTP status (the static files: a path that leaves
 * the root or holds a NUL is 403, a directory 403, a bad Range 416, a failed If-Match 412).
 * They are the client's doing, so they must not be answered 500 nor logged as errors: anyone
 * could flood the log with stack traces.
 */
const clientCodes: Readonly<Record<number, HttpErrorCode>> = {
  403: 'forbidden',
  404: 'not_found',
  412: 'precondition_failed',
  416: 'range_not_satisfiable',
};

function clientStatus(error: Error): number | null {
  const status = 'statusCode' in error ? error.statusCode : 'status' in error ? error.status : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

function classify(
  error: FastifyError | Error,
  request: FastifyRequest,
): { code: ErrorCode; message: string; field?: string; client?: true } {
  if (error instanceof EngineError || error instanceof HttpError) {
    return { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) };
  }
  // A route's schema refused the request (validation.ts): the field and the refusal its schema names.
  if (
    'validation' in error &&
    Array.isArray(error.validation) &&
    'validationContext' in error &&
    error.validationContext
  ) {
    return refusalOf(request, error.validationContext, error.validation);
  }
  const fastifyCode = 'code' in error && typeof error.code === 'string' ? fastifyCodes[error.code] : undefined;
  const isJsonSyntax = error instanceof SyntaxError && 'statusCode' in error && error.statusCode === 400;
  if (fastifyCode !== undefined || isJsonSyntax) {
    const code = fastifyCode ?? 'invalid_json';
    return { code, message: fastifyMessages[code]! };
  }
  const status = clientStatus(error);
  if (status !== null) {
    const code = clientCodes[status] ?? 'bad_request';
    return { code, message: fastifyMessages[code]!, client: true };
  }
  // A fenced write (cluster): the room moved to another node while this one served the request.
  if (error instanceof LeaseLostError) return { code: 'lease_lost', message: error.message };
  // PostgreSQL down or restarting: nothing of the request was acknowledged, and it may be retried.
  if (isStoreUnavailable(error)) return { code: 'store_unavailable', message: storeUnavailableMessage };
  return { code: 'internal_error', message: 'internal error; the log has the details' };
}

const storeUnavailableMessage = 'the database cannot be reached now; try again shortly';

/** How long a client is asked to wait before it retries a request the database could not take. */
const storeRetryAfterSecs = 2;

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, field?: string): FastifyReply {
  if (statusByCode[code] === 401 && !reply.hasHeader('www-authenticate'))
    reply.header('www-authenticate', 'Bearer realm="meet"');
  const body: ErrorBody = { error: { code, message, ...(field ? { field } : {}) } };
  return reply.code(statusByCode[code]).type('application/json; charset=utf-8').send(body);
}

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { code, message, field, client } = classify(error, request);
  if (error instanceof TooManyAttemptsError) reply.header('retry-after', String(error.retryAfterSecs));
  if (code === 'store_unavailable') reply.header('retry-after', String(storeRetryAfterSecs));
  if (code === 'internal_error') request.log.error({ err: error }, 'request failed');
  // One short line: during an outage every request fails the same way, a stack each would flood the log.
  else if (code === 'store_unavailable') request.log.warn({ code, reason: error.message }, 'database unavailable');
  // No stack and no URL: one short line, and only when debugging.
  else if (client) request.log.debug({ code, reason: error.message }, 'request refused');
  return sendError(reply, code, message, field);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, 'not_found', `nothing is served at ${request.method} ${request.url.split('?')[0]}`);
}
