import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EngineServices } from '../../engine/services.js';
import { attendanceCsv } from '../../engine/meetings/attendance.js';
import type { TimelineEntry } from '../../engine/meetings/timeline.js';
import type { Role } from '../../engine/tokens/token-service.js';
import { invalidField } from '../../engine/errors.js';
import { checkName } from '../../engine/waiting/knock-fields.js';
import { noteEvent } from '../access-log.js';
import { barOf, bodyOf } from '../body.js';

type WithId = { Params: { id: string } };
type WithRequest = { Params: { id: string; request_id: string } };
type WithMeeting = WithId & { Querystring: { meeting?: string } };

export const linkTtl = { fallback: 24 * 3600, max: 30 * 24 * 3600 } as const;

function timelineView(entry: TimelineEntry) {
  const { actor, subject } = entry;
  return {
    at: entry.at,
    kind: entry.kind,
    actor: actor && { kind: actor.kind, participant_id: actor.participantId, name: actor.name },
    subject: subject && { request_id: subject.requestId, participant_id: subject.participantId, name: subject.name },
    ...(entry.count === null ? {} : { count: entry.count }),
  };
}

function actorOf(request: FastifyRequest) {
  return { kind: 'api', name: request.actor ?? 'api' } as const;
}

function linkFields(body: unknown): { role: Role; name?: string; ttlSecs: number } {
  const raw = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (raw.role !== 'moderator' && raw.role !== 'participant') throw invalidField('role', 'role must be one of moderator, participant');
  // The same rule as a typed name, so a link can never carry a name its room would refuse.
  const name = raw.name === undefined ? undefined : checkName(raw.name);
  const ttl = raw.ttl_secs ?? linkTtl.fallback;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 60 || ttl > linkTtl.max) {
    throw invalidField('ttl_secs', `ttl_secs must be an integer from 60 to ${linkTtl.max}`);
  }
  return { role: raw.role, ...(name !== undefined ? { name } : {}), ttlSecs: ttl };
}

/** The rooms API's side of the waiting room: links, the moderators' gestures for integrations, records. */
export function waitingApiRoutes(services: EngineServices) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<WithId>('/rooms/:id/links', async (request, reply) => {
      const room = services.rooms.get(request.params.id);
      const { role, name, ttlSecs } = linkFields(request.body);
      // A link made through the API is an integration's: under scope "guests" it enters directly.
      const token = await services.tokens.signJoin({ room: room.roomId, role, source: 'integration', ...(name ? { name } : {}) }, ttlSecs);
      return reply.code(201).send({ url: `/room/${encodeURIComponent(room.roomId)}?t=${token}`, expires_in: ttlSecs });
    });

    app.get<WithId>('/rooms/:id/waiting', async (request) => {
      services.rooms.get(request.params.id);
      return services.waiting.list(request.params.id, actorOf(request));
    });

    app.post<WithRequest>('/rooms/:id/waiting/:request_id/admit', async (request) => {
      const result = services.waiting.admit(request.params.id, request.params.request_id, actorOf(request));
      noteEvent(request, 'admit', { room: request.params.id, request: request.params.request_id, admitted: result.admitted });
      return result;
    });

    app.post<WithId>('/rooms/:id/waiting/admit-all', async (request) => {
      const result = services.waiting.admitAll(request.params.id, actorOf(request));
      noteEvent(request, 'admit', { room: request.params.id, all: true, admitted: result.admitted });
      return result;
    });

    app.post<WithRequest>('/rooms/:id/waiting/:request_id/refuse', async (request) => {
      const bar = barOf(bodyOf(request));
      services.waiting.refuse(request.params.id, request.params.request_id, bar, actorOf(request));
      noteEvent(request, bar ? 'bar' : 'refuse', { room: request.params.id, request: request.params.request_id });
      return { refused: true, barred: bar };
    });

    app.post<WithId>('/rooms/:id/waiting-room/disable', async (request) => services.waiting.disableWaitingRoom(request.params.id, actorOf(request)));

    app.get<WithMeeting>('/rooms/:id/timeline', async (request) => {
      services.rooms.get(request.params.id);
      const meeting = request.query.meeting || undefined;
      const entries = services.meetings.timeline(request.params.id, meeting);
      return { meeting_id: entries[0]?.meetingId ?? meeting ?? null, entries: entries.map(timelineView) };
    });

    app.get<WithMeeting>('/rooms/:id/attendance.csv', async (request, reply) => {
      services.rooms.get(request.params.id);
      const attendance = services.meetings.attendance(request.params.id, request.query.meeting || undefined);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="attendance-${attendance.meeting.meetingId}.csv"`)
        .send(attendanceCsv(attendance));
    });
  };
}
