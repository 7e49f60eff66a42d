import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RoomService } from '../../engine/rooms/room-service.js';
import { noteEvent } from '../access-log.js';
import { HttpError } from '../errors.js';
import { roomView } from './room-view.js';

type WithId = { Params: { id: string } };

function jsonBody(request: FastifyRequest): unknown {
  // Fastify leaves the body undefined when no Content-Type came with it at all.
  if (request.body === undefined) throw new HttpError('unsupported_media_type', 'Content-Type must be application/json');
  return request.body;
}

export function roomsRoutes(rooms: RoomService) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/rooms', async (request, reply) => {
      const room = rooms.create(jsonBody(request));
      noteEvent(request, 'create', { room: room.roomId });
      return reply.code(201).send(roomView(room));
    });

    app.get<{ Querystring: { limit?: string; cursor?: string } }>('/rooms', async (request) => {
      const page = rooms.list(request.query);
      return { rooms: page.rooms.map(roomView), next_cursor: page.nextCursor };
    });

    app.get<WithId>('/rooms/:id', async (request) => roomView(rooms.get(request.params.id)));

    app.patch<WithId>('/rooms/:id', async (request) => roomView(rooms.update(request.params.id, jsonBody(request))));

    app.delete<WithId>('/rooms/:id', async (request, reply) => {
      rooms.delete(request.params.id);
      noteEvent(request, 'delete', { room: request.params.id });
      return reply.code(204).send();
    });
  };
}
