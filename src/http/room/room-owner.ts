// Issue 35: a clustered node serves a room's addresses only while it owns the room (its live state
// is in this node's memory alone). Elsewhere (point 3) it forwards them to the owner over the
// signed node channel and answers what the owner answers (room-forwarder.ts), so through any node
// an unlisted room, a missing one and a sub-group answer as on their owner. Every well-formed id is
// served by one node: its owner, or for an id no live node holds (a free room, or no room at all)
// its rendezvous successor, which alone reads whether the room exists and leaves a missing one to
// its route (404, no lease written). A live socket's upgrade is let through to the live relay
// (http/live/relay-front.ts), which opens it on the owner. What is still answered 421
// room_elsewhere naming the owner: a request that came from another
// node (never forwarded twice: two nodes whose views differ for a moment answer 421, not loop),
// and every request on a node without a forwarder. No answer from the owner: the ownership is
// asked once more (it may have died, and this node or another be its successor now), then 503
// owner_unreachable with Retry-After. An id that is not one is left to the route (its 400). The
// live sockets a node accepted for a room are kept here so that losing the room closes them.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Whereabouts } from '../../engine/cluster/ownership.js';
import { roomIdPattern } from '../../protocol/room-code.js';
import { sendError, statusByCode } from '../errors.js';
import { cameFromNode, unansweredReason, type RoomForwarder } from './room-forwarder.js';

/** What the listener needs of the node's ownership (engine/cluster/ownership.ts). */
export interface RoomPlacement {
  where(roomId: string): Promise<Whereabouts>;
  ownerOf(roomId: string): Promise<string | null>;
}

/** The rooms-API routes that act on the room's live state (its waiting room): the owner's. */
const ownerApiRoutes = new Set([
  '/api/rooms/:id/waiting',
  '/api/rooms/:id/waiting/:request_id/admit',
  '/api/rooms/:id/waiting/admit-all',
  '/api/rooms/:id/waiting/:request_id/refuse',
  '/api/rooms/:id/waiting-room/disable',
]);

/** Every room address but `exists`, which reads the store only. */
const roomAddress = (route: string) => route.startsWith('/room/:id/') && route !== '/room/:id/exists';

/** What the gate reads of the rooms' families (engine/rooms/room-families.ts, and the room store's kept copies). */
export interface FamilyMap {
  /** The id of the family's main room (a sub-group is owned with it); the id itself for a main room and for no room alike. */
  mainRoomOf(roomId: string): Promise<string>;
  /** What this node kept of the room and its family goes: the next `mainRoomOf` reads the store. */
  forget(mainRoomId: string, roomId: string): void;
}

/** How long a client is asked to wait when the room's owner did not answer (a failover takes a few seconds). */
const unreachableRetryAfterSecs = 2;

export class RoomGate {
  private readonly sockets = new Map<string, Set<Socket>>();
  /** Live upgrades let through to be relayed to their room's owner (issue 35 point 3), and to which node. */
  private readonly relayed = new WeakMap<FastifyRequest, string>();
  /** Set when the node relays live sockets (it has the cluster's channel): their upgrades are not answered 421. */
  relayLive = false;

  constructor(
    readonly placement: RoomPlacement,
    private readonly families: FamilyMap,
    private readonly forwarder: RoomForwarder | null = null,
  ) {}

  /** onRequest of the listener: the room addresses. */
  readonly check = (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> =>
    this.gate(request, reply, roomAddress, false);

  /** preHandler of the rooms API, after its authentication: only who may see the room learns where it is served. */
  readonly checkApi = (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> =>
    this.gate(request, reply, (route) => ownerApiRoutes.has(route), true);

  private async gate(
    request: FastifyRequest,
    reply: FastifyReply,
    gated: (route: string) => boolean,
    bodyParsed: boolean,
  ): Promise<FastifyReply | undefined> {
    const route = request.routeOptions.url;
    if (route === undefined || !gated(route)) return undefined;
    const id = (request.params as { id?: unknown }).id;
    if (typeof id !== 'string' || !roomIdPattern.test(id)) return undefined;
    let main = await this.families.mainRoomOf(id);
    let place = await this.placement.where(main);
    if (!place.mine) {
      // What this node kept of a family it does not serve may be stale (a group deleted through
      // its owner), and two nodes each naming the other would send a page back and forth: the
      // family is read again from the store before another node is named.
      this.families.forget(main, id);
      const read = await this.families.mainRoomOf(id);
      if (read !== main) place = await this.placement.where((main = read));
    }
    if (place.mine) {
      if (route === '/room/:id/live') this.keep(main, request.raw.socket);
      return undefined;
    }
    // This node is the id's successor and no room has it (or the node is stopping): the route's 404.
    if (place.owner === null) return undefined;
    if (request.headers.upgrade !== undefined) {
      // A live socket's upgrade is the live relay's (opened on the owner by the live route).
      if (!this.relayLive || route !== '/room/:id/live' || request.headers.upgrade.toLowerCase() !== 'websocket')
        return this.elsewhere(reply, place.owner);
      this.relayed.set(request, place.owner);
      return undefined;
    }
    // A request from another node is never forwarded twice.
    if (this.forwarder === null || cameFromNode(request)) return this.elsewhere(reply, place.owner);
    return this.forward(request, reply, main, place.owner, this.forwarder, bodyParsed);
  }

  /** The owner's answer; after no answer, the ownership once more (a new owner: once more), then 503. */
  private async forward(
    request: FastifyRequest,
    reply: FastifyReply,
    main: string,
    owner: string,
    forwarder: RoomForwarder,
    bodyParsed: boolean,
  ): Promise<FastifyReply> {
    const message = await forwarder.message(request, bodyParsed);
    let asked = owner;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return forwarder.reply(reply, await forwarder.send(asked, message));
      } catch (err) {
        const now = await this.placement.where(main);
        // This node is its owner now (it claimed a dead owner's room), or its successor and no room has the id.
        if (now.mine || now.owner === null) return forwarder.reply(reply, await forwarder.run(message));
        if (attempt > 0 || now.owner === asked)
          return sendError(
            reply.header('retry-after', String(unreachableRetryAfterSecs)),
            'owner_unreachable',
            `the node serving this room did not answer (${unansweredReason(err)}); try again shortly`,
          );
        asked = now.owner;
      }
    }
  }

  /** The live route's question: the owner an upgrade let through goes to (undefined: this node serves the room). */
  readonly ownerFor = (request: FastifyRequest): string | undefined => this.relayed.get(request);

  /** The main room of `roomId`'s family when this node serves it now; null otherwise (the relay's owner side). */
  async servedHere(roomId: string): Promise<string | null> {
    if (!roomIdPattern.test(roomId)) return null;
    const main = await this.families.mainRoomOf(roomId);
    return (await this.placement.where(main)).mine ? main : null;
  }

  /** 421 naming the owner, in the same words for every id: nothing of the room (not even the id asked). */
  readonly elsewhere = (reply: FastifyReply, owner: string): FastifyReply =>
    reply
      .code(statusByCode.room_elsewhere)
      .type('application/json; charset=utf-8')
      .send({
        error: {
          code: 'room_elsewhere',
          message: `this room is served by node ${owner} of this cluster; ask that node`,
          owner_node: owner,
        },
      });

  /** The room was lost: its live sockets close (their pages reconnect, to its owner through the others' 421). */
  dropSockets(mainRoomId: string): void {
    const sockets = this.sockets.get(mainRoomId);
    this.sockets.delete(mainRoomId);
    for (const socket of sockets ?? []) socket.destroy();
  }

  private keep(mainRoomId: string, socket: Socket): void {
    let sockets = this.sockets.get(mainRoomId);
    if (!sockets) this.sockets.set(mainRoomId, (sockets = new Set()));
    sockets.add(socket);
    socket.once('close', () => {
      const now = this.sockets.get(mainRoomId);
      now?.delete(socket);
      if (now?.size === 0) this.sockets.delete(mainRoomId);
    });
  }
}
