import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EngineServices } from '../../engine/services.js';
import { attendanceCsv } from '../../engine/meetings/attendance.js';
import type { TimelineEntry } from '../../engine/meetings/timeline.js';
import { checkName } from '../../engine/waiting/knock-fields.js';
import { noteEvent } from '../../platform/access-log.js';
import { absentBodyIsEmpty, RequestParams, RoomParams } from '../schemas.js';
import {
  AdmitAnswer,
  answers,
  AttendanceCsv,
  bodyCodes,
  LinkAnswer,
  RefuseAnswer,
  TimelineAnswer,
  WaitingListAnswer,
} from './answers.js';
import { ApiRefuseBody, LinkBody, linkTtl, MeetingQuery } from './waiting-schemas.js';

type WithId = { Params: RoomParams };
type WithRequest = { Params: RequestParams };
type WithMeeting = WithId & { Querystring: MeetingQuery };
const gesture = ['room_not_found', 'meeting_not_found', 'request_not_found', 'request_not_waiting'] as const;
const withMeeting = (ok: Parameters<typeof answers>[0]) => ({
  schema: {
    params: RoomParams,
    querystring: MeetingQuery,
    response: answers(ok, ['room_not_found', 'meeting_not_found']),
  },
});

function timelineView(entry: TimelineEntry) {
  const { actor, subject } = entry;
  return {
    at: entry.at,
    kind: entry.kind,
    actor: actor && { kind: actor.kind, participant_id: actor.participantId, name: actor.name },
    subject: subject && { request_id: subject.requestId, participant_id: subject.participantId, name: subject.name },
    ...(entry.count === null ? {} : { count: entry.count }),
    ...(entry.skipped === undefined ? {} : { skipped: entry.skipped }),
  };
}

function actorOf(request: FastifyRequest) {
  return { kind: 'api', name: request.actor ?? 'api' } as const;
}

/** The rooms API's side of the waiting room: links, the moderators' gestures for integrations, records. */
export function waitingApiRoutes(services: EngineServices) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<WithId & { Body: LinkBody }>(
      '/rooms/:id/links',
      {
        schema: {
          params: RoomParams,
          body: LinkBody,
          response: answers({ 201: LinkAnswer }, [...bodyCodes, 'room_not_found']),
        },
        preValidation: absentBodyIsEmpty,
      },
      async (request, reply) => {
        const room = await services.rooms.get(request.params.id);
        // A moderator's link lasts the room's moderator_link_ttl_secs (a school term by default) unless asked otherwise.
        const { role, ttl_secs: ttlSecs = role === 'moderator' ? room.moderatorLinkTtlSecs : linkTtl.fallback } =
          request.body;
        // The same rule as a typed name, so a link can never carry a name its room would refuse.
        const name = request.body.name === undefined ? undefined : checkName(request.body.name);
        // A link made through the API is an integration's: under scope "guests" it enters directly.
        const token = await services.tokens.signJoin(
          { room: room.roomId, role, source: 'integration', ...(name ? { name } : {}) },
          ttlSecs,
        );
        return reply
          .code(201)
          .send({ url: `/room/${encodeURIComponent(room.roomId)}?t=${token}`, expires_in: ttlSecs });
      },
    );

    app.get<WithId>(
      '/rooms/:id/waiting',
      { schema: { params: RoomParams, response: answers({ 200: WaitingListAnswer }, ['room_not_found']) } },
      async (request) => {
        await services.rooms.get(request.params.id);
        return services.waiting.list(request.params.id, actorOf(request));
      },
    );

    app.post<WithRequest>(
      '/rooms/:id/waiting/:request_id/admit',
      { schema: { params: RequestParams, response: answers({ 200: AdmitAnswer }, gesture) } },
      async (request) => {
        const result = await services.waiting.admit(request.params.id, request.params.request_id, actorOf(request));
        noteEvent(request, 'admit', {
          room: request.params.id,
          request: request.params.request_id,
          admitted: result.admitted,
        });
        return result;
      },
    );

    app.post<WithId>(
      '/rooms/:id/waiting/admit-all',
      {
        schema: {
          params: RoomParams,
          response: answers({ 200: AdmitAnswer }, ['room_not_found', 'meeting_not_found']),
        },
      },
      async (request) => {
        const result = await services.waiting.admitAll(request.params.id, actorOf(request));
        noteEvent(request, 'admit', { room: request.params.id, all: true, admitted: result.admitted });
        return result;
      },
    );

    const refuse = {
      schema: {
        params: RequestParams,
        body: ApiRefuseBody,
        response: answers({ 200: RefuseAnswer }, [...bodyCodes, ...gesture]),
      },
      preValidation: absentBodyIsEmpty,
    };
    app.post<WithRequest & { Body: ApiRefuseBody }>(
      '/rooms/:id/waiting/:request_id/refuse',
      refuse,
      async (request) => {
        const bar = request.body.bar ?? false;
        await services.waiting.refuse(request.params.id, request.params.request_id, bar, actorOf(request));
        noteEvent(request, bar ? 'bar' : 'refuse', { room: request.params.id, request: request.params.request_id });
        return { refused: true, barred: bar };
      },
    );

    const disable = answers({ 200: AdmitAnswer }, [
      'room_not_found',
      'meeting_not_found',
      'waiting_room_forced',
      'waiting_room_unavailable',
    ]);
    app.post<WithId>(
      '/rooms/:id/waiting-room/disable',
      { schema: { params: RoomParams, response: disable } },
      async (request) => services.waiting.disableWaitingRoom(request.params.id, actorOf(request)),
    );

    app.get<WithMeeting>('/rooms/:id/timeline', withMeeting({ 200: TimelineAnswer }), async (request) => {
      await services.rooms.get(request.params.id);
      const meeting = request.query.meeting || undefined;
      const entries = await services.meetings.timeline(request.params.id, meeting);
      return { meeting_id: entries[0]?.meetingId ?? meeting ?? null, entries: entries.map(timelineView) };
    });

    app.get<WithMeeting>('/rooms/:id/attendance.csv', withMeeting({ 200: AttendanceCsv }), async (request, reply) => {
      await services.rooms.get(request.params.id);
      const attendance = await services.meetings.attendance(request.params.id, request.query.meeting || undefined);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="attendance-${attendance.meeting.meetingId}.csv"`)
        .send(attendanceCsv(attendance));
    });
  };
}
