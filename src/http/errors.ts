import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { EngineError, type EngineErrorCode } from '../engine/errors.js';
import { TooManyAttemptsError } from '../engine/waiting/attempt-limiter.js';

/** Failures that only the HTTP surface knows (framing, authentication). */
export type HttpErrorCode =
  | 'invalid_json'
  | 'unauthorized'
  | 'not_found'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'join_token_invalid'
  | 'internal_error';

export type ErrorCode = EngineErrorCode | HttpErrorCode;

/** The one table of the engine listener: a code always answers with the same status. */
export const statusByCode: Readonly<Record<ErrorCode, number>> = {
  invalid_field: 400,
  invalid_json: 400,
  unauthorized: 401,
  participant_not_found: 401,
  access_code_invalid: 403,
  barred: 403,
  not_moderator: 403,
  join_token_invalid: 403,
  guest_denied: 403,
  subgroup_closed: 403,
  room_not_found: 404,
  token_not_found: 404,
  request_not_found: 404,
  meeting_not_found: 404,
  not_found: 404,
  room_exists: 409,
  token_exists: 409,
  request_not_waiting: 409,
  waiting_room_forced: 409,
  waiting_room_unavailable: 409,
  waiting_room_mode_fixed: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  too_many_attempts: 429,
  too_many_knocks: 429,
  too_many_waiting: 429,
  waiting_room_full: 429,
  internal_error: 500,
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
};

function classify(error: FastifyError | Error): { code: ErrorCode; message: string; field?: string } {
  if (error instanceof EngineError || error instanceof HttpError) {
    return { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) };
  }
  const fastifyCode = 'code' in error && typeof error.code === 'string' ? fastifyCodes[error.code] : undefined;
  const isJsonSyntax = error instanceof SyntaxError && 'statusCode' in error && error.statusCode === 400;
  const code = fastifyCode ?? (isJsonSyntax ? 'invalid_json' : 'internal_error');
  return { code, message: fastifyMessages[code] ?? 'internal error; the log has the details' };
}

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, field?: string): FastifyReply {
  if (statusByCode[code] === 401 && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', 'Bearer realm="meet"');
  const body: ErrorBody = { error: { code, message, ...(field ? { field } : {}) } };
  return reply.code(statusByCode[code]).type('application/json; charset=utf-8').send(body);
}

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { code, message, field } = classify(error);
  if (error instanceof TooManyAttemptsError) reply.header('retry-after', String(error.retryAfterSecs));
  if (code === 'internal_error') request.log.error({ err: error }, 'request failed');
  return sendError(reply, code, message, field);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, 'not_found', `nothing is served at ${request.method} ${request.url.split('?')[0]}`);
}
