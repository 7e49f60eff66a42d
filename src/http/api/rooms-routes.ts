import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccountService } from '../../engine/accounts/account-service.js';
import { EngineError, invalidField } from '../../engine/errors.js';
import type { RoomService } from '../../engine/rooms/room-service.js';
import { noteEvent } from '../../platform/access-log.js';
import { HttpError } from '../errors.js';
import { RoomParams } from '../schemas.js';
import { answers, bodyCodes, RoomAnswer, RoomListAnswer } from './answers.js';
import { CreateRoomBody, RoomListQuery, UpdateRoomBody } from './rooms-schemas.js';
import { roomView } from './room-view.js';
import type { RoomPlacement } from '../room/room-owner.js';
import type { Room } from '../../engine/rooms/room.js';

// Fastify leaves the body undefined when no Content-Type came with it at all: that is not JSON.
function jsonOnly(request: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
  done(
    request.body === undefined
      ? new HttpError('unsupported_media_type', 'Content-Type must be application/json')
      : undefined,
  );
}

/**
 * The account that `owner_email` names, for a caller who may hand rooms over: an admin account or
 * an access token (integrations reach every room), never an organiser.
 */
async function newOwner(request: FastifyRequest, accounts: AccountService, email: string): Promise<string> {
  if (request.account && !request.account.admin)
    throw new HttpError('forbidden', 'only an admin account can hand a room to another organiser', 'owner_email');
  let account;
  try {
    account = await accounts.show(email);
  } catch (err) {
    if (err instanceof EngineError) throw invalidField('owner_email', `no account has the email ${email}`);
    throw err;
  }
  if (account.disabled) throw invalidField('owner_email', `the account ${account.email} is disabled`);
  return account.accountId;
}

export function roomsRoutes(
  rooms: RoomService,
  accounts: AccountService,
  /** A clustered node's rooms: GET shows admins the room's owner node (issue 35 stage 2). */
  placement?: Pick<RoomPlacement, 'ownerOf'>,
) {
  // The owner's email, read before the view is made (the account store answers asynchronously).
  const view = async (room: Room) => {
    const owner = room.ownerAccountId === null ? null : await accounts.byId(room.ownerAccountId);
    return roomView(room, () => owner?.email ?? null);
  };
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
        const room = await rooms.create(
          request.body,
          request.account ? { ownerAccountId: request.account.accountId } : {},
        );
        noteEvent(request, 'create', { room: room.roomId });
        return reply.code(201).send(await view(room));
      },
    );

    app.get<{ Querystring: RoomListQuery }>(
      '/rooms',
      { schema: { querystring: RoomListQuery, response: answers({ 200: RoomListAnswer }, ['invalid_field']) } },
      async (request) => {
        const account = request.account;
        const page = await rooms.list(request.query, account && !account.admin ? account.accountId : undefined);
        return { rooms: await Promise.all(page.rooms.map(view)), next_cursor: page.nextCursor };
      },
    );

    app.get<{ Params: RoomParams }>(
      '/rooms/:id',
      { schema: { params: RoomParams, response: answers({ 200: RoomAnswer }, ['room_not_found']) } },
      async (request) => {
        const room = await view(await rooms.get(request.params.id));
        // An admin account or an access token sees which node serves the room; an organiser does not.
        if (!placement || (request.account && !request.account.admin)) return room;
        return { ...room, owner_node: await placement.ownerOf(room.parent_room_id ?? room.room_id) };
      },
    );

    app.patch<{ Params: RoomParams; Body: UpdateRoomBody }>(
      '/rooms/:id',
      {
        schema: {
          params: RoomParams,
          body: UpdateRoomBody,
          response: answers({ 200: RoomAnswer }, [
            ...bodyCodes,
            'forbidden',
            'room_not_found',
            'waiting_room_mode_fixed',
          ]),
        },
        preValidation: jsonOnly,
      },
      async (request) => {
        const { owner_email: ownerEmail, ...fields } = request.body;
        const owner = ownerEmail === undefined ? null : await newOwner(request, accounts, ownerEmail);
        // The other fields first (checked, stored), then the new owner: one request, one answer.
        const changed = Object.keys(fields).length > 0 || owner === null;
        const room = await (changed ? rooms.update(request.params.id, fields) : rooms.get(request.params.id));
        if (owner === null) return view(room);
        noteEvent(request, 'hand_over', { room: room.roomId, owner });
        return view(await rooms.handOver(room.roomId, owner));
      },
    );

    app.delete<{ Params: RoomParams }>(
      '/rooms/:id',
      { schema: { params: RoomParams, response: answers({ 204: null }, ['room_not_found']) } },
      async (request, reply) => {
        await rooms.delete(request.params.id);
        noteEvent(request, 'delete', { room: request.params.id });
        return reply.code(204).send();
      },
    );
  };
}
