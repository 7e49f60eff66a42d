// Issue 35 stage 2: a clustered node serves a room's addresses only while it owns the room (its
// live state is in this node's memory alone). Elsewhere they answer 421 room_elsewhere naming the
// owner node and nothing else of the room, until the next stage forwards them to the owner. Every
// well-formed id gets that answer from every node but one: its owner, or for an id no live node
// holds (a free room, or no room at all) its rendezvous successor, which alone reads whether the
// room exists and leaves a missing one to its route (404, no lease written). So a non-owner's
// answer never tells a missing room from an unlisted one. An id that is not one is left to the
// route (its 400). The live sockets a node accepted for a room are kept here so that losing the
// room closes them.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Whereabouts } from '../../engine/cluster/ownership.js';
import { roomIdPattern } from '../../protocol/room-code.js';
import { statusByCode } from '../errors.js';

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

export class RoomGate {
  private readonly sockets = new Map<string, Set<Socket>>();
  /** Live upgrades let through to be relayed to their room's owner (issue 35 point 3), and to which node. */
  private readonly relayed = new WeakMap<FastifyRequest, string>();
  /** Set when the node relays live sockets (it has the cluster's channel): their upgrades are not answered 421. */
  relayLive = false;

  constructor(
    readonly placement: RoomPlacement,
    private readonly families: FamilyMap,
  ) {}

  /** onRequest of the listener: the room addresses. */
  readonly check = (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> =>
    this.gate(request, reply, roomAddress);

  /** preHandler of the rooms API, after its authentication: only who may see the room learns where it is served. */
  readonly checkApi = (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> =>
    this.gate(request, reply, (route) => ownerApiRoutes.has(route));

  private async gate(
    request: FastifyRequest,
    reply: FastifyReply,
    gated: (route: string) => boolean,
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
    if (this.relayLive && route === '/room/:id/live' && request.headers.upgrade?.toLowerCase() === 'websocket') {
      this.relayed.set(request, place.owner);
      return undefined;
    }
    return this.elsewhere(reply, place.owner);
  }

  /** The live route's question: the owner an upgrade let through goes to (undefined: this node serves the room). */
  readonly ownerFor = (request: FastifyRequest): string | undefined => this.relayed.get(request);

  /** The main room of `roomId`'s family when this node serves it now; null otherwise (the relay's owner side). */
  async servedHere(roomId: string): Promise<string | null> {
    if (!roomIdPattern.test(roomId)) return null;
    const main = await this.families.mainRoomOf(roomId);
    return (await this.placement.where(main)).mine ? main : null;
  }

  /** The same words for every id: nothing of the room (not even the id asked) but the node to ask. */
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
