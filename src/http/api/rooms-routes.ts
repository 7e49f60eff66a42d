import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RoomService } from '../../engine/rooms/room-service.js';
import { noteEvent } from '../../platform/access-log.js';
import { HttpError } from '../errors.js';
import { RoomParams } from '../schemas.js';
import { answers, bodyCodes, RoomAnswer, RoomListAnswer } from './answers.js';
import { CreateRoomBody, RoomListQuery, UpdateRoomBody } from './rooms-schemas.js';
import { roomView } from './room-view.js';

// Fastify leaves the body undefined when no Content-Type came with it at all: that is not JSON.
function jsonOnly(request: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
  done(
    request.body === undefined
      ? new HttpError('unsupported_media_type', 'Content-Type must be application/json')
      : undefined,
  );
}

export function roomsRoutes(rooms: RoomService) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: CreateRoomBody }>(
      '/rooms',
      {
        schema: {
          body: CreateRoomBody,
          response: answers({ 201: RoomAnswer }, [
            ...bodyCodes,
            'room_exists',
            'room_not_found',
            'waiting_room_mode_fixed',
          ]),
        },
        preValidation: jsonOnly,
      },
      async (request, reply) => {
        // An organiser's room is hers (an admin's too); a room made with an access token has no owner.
        const room = rooms.create(request.body, request.account ? { ownerAccountId: request.account.accountId } : {});
        noteEvent(request, 'create', { room: room.roomId });
        return reply.code(201).send(roomView(room));
      },
    );

    app.get<{ Querystring: RoomListQuery }>(
      '/rooms',
      { schema: { querystring: RoomListQuery, response: answers({ 200: RoomListAnswer }, ['invalid_field']) } },
      async (request) => {
        const account = request.account;
        const page = rooms.list(request.query, account && !account.admin ? account.accountId : undefined);
        return { rooms: page.rooms.map(roomView), next_cursor: page.nextCursor };
      },
    );

    app.get<{ Params: RoomParams }>(
      '/rooms/:id',
      { schema: { params: RoomParams, response: answers({ 200: RoomAnswer }, ['room_not_found']) } },
      async (request) => roomView(rooms.get(request.params.id)),
    );

    app.patch<{ Params: RoomParams; Body: UpdateRoomBody }>(
      '/rooms/:id',
      {
        schema: {
          params: RoomParams,
          body: UpdateRoomBody,
          response: answers({ 200: RoomAnswer }, [...bodyCodes, 'room_not_found', 'waiting_room_mode_fixed']),
        },
        preValidation: jsonOnly,
      },
      async (request) => roomView(rooms.update(request.params.id, request.body)),
    );

    app.delete<{ Params: RoomParams }>(
      '/rooms/:id',
      { schema: { params: RoomParams, response: answers({ 204: null }, ['room_not_found']) } },
      async (request, reply) => {
        rooms.delete(request.params.id);
        noteEvent(request, 'delete', { room: request.params.id });
        return reply.code(204).send();
      },
    );
  };
}
