import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SignedCall, signedTexts } from './checksum.js';
import type { Answer, ConfapiDeps, Handler } from './context.js';
import { ConfapiError, confapiErrors, failure } from './errors.js';
import { create } from './handlers/create.js';
import { join } from './handlers/join.js';
import { end, getMeetingInfo, getMeetings, isMeetingRunning } from './handlers/meetings.js';
import { sendChatMessage } from './handlers/chat.js';
import { deleteRecordings, getRecordings, publishRecordings, updateRecordings } from './handlers/recordings.js';
import { learningDashboard } from './handlers/learning-dashboard.js';
import { getJoinUrl } from './handlers/get-join-url.js';
import { noteEvent } from '../../platform/access-log.js';
import { LeaseLostError } from '../../engine/cluster/leases.js';
import { isStoreUnavailable } from '../../platform/postgres.js';
import { Params } from './params.js';
import { readQuery, type ReadQuery } from './query.js';
import type { TenantChooser } from './tenant-choice.js';
import { failed, success } from './xml.js';

/**
 * Where the API answers, each with every call and the version root. `/bigbluebutton/api` is
 * the upstream path, which some clients (Canvas) hard-code and others (Moodle, after trimming
 * `/api` off the configured URL) end up at. The path is never signed (the call name is), so
 * one signature is good under either.
 */
export const apiPrefixes = ['/confapi/api', '/bigbluebutton/api'] as const;

/**
 * The same two paths with the tenant named in them (`/confapi/{tenant}/api/{call}`): the call
 * is checked with that tenant's secret alone (tenant-choice.ts).
 */
export const tenantApiPrefixes = ['/confapi/:tenant/api', '/bigbluebutton/:tenant/api'] as const;

/**
 * The upstream release whose API this one matches (the root's `<bbbVersion>`): 2.7's calls and
 * answer shapes (getJoinUrl, learningDashboard by sessionToken), without 3.0's GraphQL elements.
 */
export const matchedBbbVersion = '2.7.0';

/** Longest raw query string accepted (a create with its metadata fits easily). */
export const maxQueryLength = 8 * 1024;

/** Longest body accepted (a create's pre-upload XML of document references). */
export const maxBodyBytes = 256 * 1024;

const formType = 'application/x-www-form-urlencoded';
const xmlTypes = ['application/xml', 'text/xml'];

interface CallSpec {
  readonly handler: Handler;
  /** May a POST carry an XML body (create's pre-uploaded presentations)? */
  readonly xmlBody?: boolean;
  /** Answered as JSON rather than XML, errors included. */
  readonly json?: boolean;
}

function unsupported(): Answer {
  throw failure('unsupportedRequest');
}

/** Every call the API implements. Anything else, known upstream or not, is unsupportedRequest. */
export const calls: Readonly<Record<string, CallSpec>> = {
  create: { handler: create, xmlBody: true },
  join: { handler: join },
  end: { handler: end },
  isMeetingRunning: { handler: isMeetingRunning },
  getMeetingInfo: { handler: getMeetingInfo },
  getMeetings: { handler: getMeetings },
  sendChatMessage: { handler: sendChatMessage },
  getRecordings: { handler: getRecordings },
  publishRecordings: { handler: publishRecordings },
  deleteRecordings: { handler: deleteRecordings },
  updateRecordings: { handler: updateRecordings },
  learningDashboard: { handler: learningDashboard, json: true },
  getJoinUrl: { handler: getJoinUrl, json: true },
  // Not implemented (the spec says so), but refused in upstream's JSON shape: clients parse these answers as JSON.
  getRecordingTextTracks: { handler: unsupported, json: true },
  putRecordingTextTrack: { handler: unsupported, json: true },
};

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function rawQueryOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

const jsonCalls = new Set(
  Object.entries(calls)
    .filter(([, spec]) => spec.json)
    .map(([name]) => name),
);

function isJsonCall(request: FastifyRequest): boolean {
  return jsonCalls.has((request.params as { call?: string } | undefined)?.call ?? '');
}

function sendFailure(request: FastifyRequest, reply: FastifyReply, messageKey: string, message: string): FastifyReply {
  reply.code(200).header('cache-control', 'no-cache');
  if (isJsonCall(request)) {
    return reply
      .type('application/json; charset=utf-8')
      .send({ response: { returncode: 'FAILED', messageKey, message } });
  }
  return reply.type('text/xml; charset=utf-8').send(failed(messageKey, message));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font:1.1rem/1.5 system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1rem}</style></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;
}

function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(200).header('cache-control', 'no-cache');
  switch (answer.kind) {
    case 'xml':
      return reply.type('text/xml; charset=utf-8').send(answer.body);
    case 'json':
      return reply.type('application/json; charset=utf-8').send(answer.body);
    case 'redirect':
      return reply.redirect(answer.location, 302);
    case 'page':
      return reply
        .code(answer.status)
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        .type('text/html; charset=utf-8')
        .send(page(answer.title, answer.text));
  }
}

/**
 * The meeting API: one route for every call under one of apiPrefixes or tenantApiPrefixes.
 * The pipeline, as in front of every call: size → call known → content type → checksum and
 * tenant (the one the path or host names, else the one whose secret matches) → parameters
 * (duplicates refused) → handler. Every answer and every failure is HTTP 200.
 */
export function confapiRoutes(tenants: TenantChooser, deps: ConfapiDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.setErrorHandler((err: FastifyError | ConfapiError, request, reply) => {
      if (err instanceof ConfapiError) return sendFailure(request, reply, err.messageKey, err.message);
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        return sendFailure(request, reply, 'requestTooLarge', 'The request is too large.');
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
        return sendFailure(
          request,
          reply,
          'unsupportedContentType',
          'POST request Content-Type is missing or unsupported',
        );
      }
      // PostgreSQL down or restarting: a stable key the platform may retry on, one short line per call.
      if (isStoreUnavailable(err)) {
        request.log.warn({ reason: err.message }, 'confapi call failed: database unavailable');
        return sendFailure(request, reply, 'databaseUnavailable', confapiErrors.databaseUnavailable);
      }
      // A clustered node writing a meeting whose room another node serves (issue 35): refused by the fence.
      if (err instanceof LeaseLostError)
        return sendFailure(request, reply, 'meetingElsewhere', confapiErrors.meetingElsewhere);
      request.log.error({ err }, 'confapi call failed');
      return sendFailure(request, reply, 'internalError', 'An internal error occurred; it was logged.');
    });
    app.setNotFoundHandler((request, reply) =>
      sendFailure(request, reply, 'unsupportedRequest', 'This request is not supported.'),
    );

    const versionAnswer: Answer = {
      kind: 'xml',
      body: success({ version: '2.0', apiVersion: '2.0', bbbVersion: matchedBbbVersion }),
    };
    const version = async (_request: FastifyRequest, reply: FastifyReply) => sendAnswer(reply, versionAnswer);
    app.route({ method: ['GET', 'POST'], url: '/', handler: version });

    app.route<{ Params: { call: string; tenant?: string } }>({
      method: ['GET', 'POST'],
      url: '/:call',
      handler: async (request, reply) => {
        const call = request.params.call;
        const rawQuery = rawQueryOf(request);
        if (rawQuery.length > maxQueryLength)
          throw failure('requestTooLarge', `The query string must be at most ${maxQueryLength} bytes`);
        const spec = Object.hasOwn(calls, call) ? calls[call] : undefined;
        if (!spec) throw failure('unsupportedRequest');

        // Content type: only a POST with a body is concerned; create alone may send XML.
        let form: ReadQuery | null = null;
        let formText = '';
        let xmlBody: string | null = null;
        const body = request.body instanceof Buffer ? request.body : null;
        if (request.method === 'POST' && body !== null && body.length > 0) {
          const type = mediaType(request.headers['content-type']);
          if (type === formType) {
            formText = body.toString('utf8');
            form = readQuery(formText);
          } else if (spec.xmlBody && xmlTypes.includes(type)) {
            xmlBody = body.toString('utf8');
          } else {
            throw failure('unsupportedContentType');
          }
        }

        // Checksum: exactly one, in the query or the form body, over what signedTexts says.
        const query = readQuery(rawQuery);
        const queryParams = query.params;
        const bodyParams = form?.params ?? [];
        const checksums = form === null ? query.checksums : [...query.checksums, ...form.checksums];
        if (checksums.length === 0) throw failure('checksumError', 'You must provide the checksum');
        if (checksums.length > 1)
          throw failure('checksumError', 'The checksum must be sent once, in the query string or in the body');
        // Upstream finds the checksum by its literal name. One sent as `checksu%6D=` stays in the
        // raw text (the cut makes it shorter) and must not be trusted through the sorted-body text.
        if (
          query.checksums.length === 1
            ? query.signed.length === rawQuery.length
            : form!.signed.length === formText.length
        ) {
          throw failure('checksumError', 'The checksum must be sent as checksum=…');
        }
        const hint = (queryParams.find(([name]) => name === 'meetingID') ??
          bodyParams.find(([name]) => name === 'meetingID'))?.[1];
        const tenant = tenants.choose(new SignedCall(checksums[0]!, call, signedTexts(query, form)), {
          pathTenant: request.params.tenant,
          host: request.host,
          client: request.ip,
          meetingId: hint,
        });

        // Parameters the checksum does not cover are never used.
        if (bodyParams.length > 0 && queryParams.length > 0) {
          throw failure(
            'validationError',
            'Parameters must be sent either in the query string or in the body, not both',
          );
        }
        const pairs = queryParams.length > 0 ? queryParams : bodyParams;
        const params = new Params(pairs);
        const note = (event: string, fields: Readonly<Record<string, string | number | boolean | null>>) =>
          noteEvent(request, event, { tenant: tenant.id, ...fields });
        // On a cluster, verified here and run by the meeting's owner when that is another node.
        const owners = deps.owners
          ? await deps.owners.answerOf({ call, tenantId: tenant.id, params: pairs, xmlBody })
          : null;
        const answer = owners ?? spec.handler({ call, tenant, params, xmlBody, deps, note });
        // Most calls answer synchronously; awaiting only a promise saves a microtask turn per call.
        const settled = answer instanceof Promise ? await answer : answer;
        // A state change gets its line (ids only); a meeting's end is logged when the engine ends it.
        if (call === 'create') note('create', {});
        return sendAnswer(reply, settled);
      },
    });
  };
}
