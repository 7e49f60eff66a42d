import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { MeetingService } from '../../engine/meetings/meeting-service.js';
import type { SessionClaims, TokenService } from '../../engine/tokens/token-service.js';
import type { LiveHub } from '../../engine/live/live-hub.js';
import type { LiveSession, Outbox } from '../../engine/live/outbox.js';
import { bearerToken } from '../bearer.js';
import { sendError } from '../errors.js';
import { sessionHolder } from '../room/session.js';
import { parseClientMessage } from './client-messages.js';
import { closeCodes, type ServerMessage } from '../../protocol/live.js';
import type { RelayFront } from './relay-front.js';

type WithId = { Params: { id: string }; Querystring: { session?: string } };

/** The largest text frame a client may send (a session description with many sections fits). */
export const maxFrameBytes = 64 * 1024;

/**
 * A socket is pinged this often; one that has not answered the previous ping is cut, so a
 * client gone without a close (lost Wi-Fi, sleeping laptop) leaves within about a minute.
 */
export const heartbeatMs = 25_000;

export interface LiveRouteDeps {
  readonly tokens: Pick<TokenService, 'verifySession'>;
  readonly meetings: Pick<MeetingService, 'participant'>;
  readonly live: LiveHub;
  /** A clustered node's relay of upgrades that reached it for a room another node owns (issue 35); absent on a single node. */
  readonly relay?: LiveRelayRoute;
}

/** What the live route needs of the relay: which upgrades go to another node, and how. */
export interface LiveRelayRoute {
  readonly front: Pick<RelayFront, 'open' | 'attach'>;
  /** The owner node the room gate let this upgrade through for; undefined when this node serves the room. */
  ownerFor(request: FastifyRequest): string | undefined;
  /** The gate's own answer when the owner cannot take it (moved, unreachable): 421 naming the owner. */
  elsewhere(reply: FastifyReply, owner: string): FastifyReply;
}

/** The same heartbeat for every socket of this node, its own rooms' and relayed ones. */
function keepAlive(socket: WebSocket): void {
  let answered = true;
  socket.on('pong', () => (answered = true));
  const heartbeat = setInterval(() => {
    if (!answered) {
      socket.terminate();
      return;
    }
    answered = false;
    socket.ping();
  }, heartbeatMs);
  heartbeat.unref();
  socket.on('close', () => clearInterval(heartbeat));
}

const refusal = 'an admitted session of this room is required';

/**
 * `GET /room/{id}/live?session=<session token>`: the live connection (WebSocket). The upgrade
 * is refused with 401 and the engine's JSON error body unless the session verifies, names
 * this room, and its participant is present in the room's open meeting (`sessionHolder`: a
 * reload within the grace period still is; who left is not). `Authorization: Bearer <session>`
 * works too, for clients that can set headers.
 * Needs @fastify/websocket registered on the app before any route.
 */
export function liveRoutes(deps: LiveRouteDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    const verified = new WeakMap<FastifyRequest, SessionClaims>();
    const relayed = new WeakMap<FastifyRequest, { conn: string; owner: string }>();
    // The hub sends one message object to every socket it concerns (a room's broadcast, the
    // moderators' waiting-list change): it is serialised once, to the bytes ws frames, not once
    // per socket (a string would be encoded to UTF-8 again by every send).
    const encoded = new WeakMap<ServerMessage, Buffer>();
    const encode = (message: ServerMessage): Buffer => {
      let bytes = encoded.get(message);
      if (bytes === undefined) {
        bytes = Buffer.from(JSON.stringify(message), 'utf8');
        encoded.set(message, bytes);
      }
      return bytes;
    };

    const authorize = async (request: FastifyRequest<WithId>, reply: FastifyReply) => {
      const query = typeof request.query.session === 'string' ? request.query.session : '';
      const presented = query !== '' ? query : (bearerToken(request.headers.authorization) ?? '');
      const owner = deps.relay?.ownerFor(request);
      if (owner !== undefined && deps.relay) {
        // The owner verifies and authorizes, as for its own sockets; its refusal is answered word for word.
        const opened = presented ? await deps.relay.front.open(owner, request.params.id, presented) : 'unauthorized';
        if (opened === 'unauthorized') return sendError(reply, 'unauthorized', refusal);
        if (opened === 'elsewhere' || opened === 'unreachable') return deps.relay.elsewhere(reply, owner);
        relayed.set(request, { conn: opened.conn, owner });
        return undefined;
      }
      const claims = presented ? await deps.tokens.verifySession(presented) : null;
      if (!claims || !sessionHolder(deps.meetings, claims, request.params.id)) {
        return sendError(reply, 'unauthorized', refusal);
      }
      verified.set(request, claims);
      return undefined;
    };

    app.get<WithId>('/room/:id/live', { websocket: true, preValidation: authorize }, (socket: WebSocket, request) => {
      const relay = relayed.get(request);
      if (relay && deps.relay) {
        keepAlive(socket);
        deps.relay.front.attach(relay.conn, relay.owner, socket);
        return;
      }
      const claims = verified.get(request);
      if (!claims) {
        socket.close(closeCodes.unauthorized, 'unauthorized');
        return;
      }
      const connection: Outbox = {
        send(message: ServerMessage) {
          if (socket.readyState === socket.OPEN) socket.send(encode(message), { binary: false });
        },
        close(code: number, reason: string) {
          if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
        },
      };
      // Handlers are attached before anything else runs, so no frame is missed.
      let session: LiveSession | null = null;
      socket.on('message', (data, isBinary) => {
        // A socket being closed (for a flood, say) reads no more: its frames are not even parsed.
        if (!session || socket.readyState !== socket.OPEN) return;
        // A binary frame is refused through the session too, so it counts against the socket's allowance.
        if (isBinary) session.receive({ ok: false, message: 'messages are JSON text frames' });
        else
          session.receive(
            parseClientMessage(
              Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'),
            ),
          );
      });
      keepAlive(socket);
      socket.on('close', () => session?.closed());
      try {
        session = deps.live.connect(claims, connection);
      } catch (err) {
        request.log.error({ err }, 'live connection failed');
        connection.close(1011, 'internal error');
      }
    });
  };
}
