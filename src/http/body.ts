import type { FastifyRequest } from 'fastify';
import { invalidField } from '../engine/errors.js';
import { HttpError } from './errors.js';

export type Body = Record<string, unknown>;

/** The JSON object body, or an empty one when none was sent. */
export function bodyOf(request: FastifyRequest): Body {
  const body = request.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError('invalid_json', 'the body must be a JSON object');
  return body as Body;
}

export function requestId(body: Body): string {
  if (typeof body.request_id !== 'string' || body.request_id === '') {
    throw invalidField('request_id', 'request_id is required');
  }
  return body.request_id;
}

export function barOf(body: Body): boolean {
  if (body.bar === undefined) return false;
  if (typeof body.bar !== 'boolean') throw invalidField('bar', 'bar must be true or false');
  return body.bar;
}
