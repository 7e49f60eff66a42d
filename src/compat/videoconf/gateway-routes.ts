import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../../engine/clock.js';
import { AttemptLimiter, TooManyAttemptsError } from '../../engine/waiting/attempt-limiter.js';
import { clientKey, clientNetwork } from '../../platform/client-key.js';
import { cleanName, nameProblem } from '../../engine/display-name.js';
import type { WaitingRoomScope } from '../../engine/rooms/room.js';
import type { RoomService } from '../../engine/rooms/room-service.js';
import type { JoinClaims, TokenService } from '../../engine/tokens/token-service.js';
import { primaryTenantId } from '../tenants/parse.js';
import { errorPage } from './error-page.js';
import type { GatewayKeys } from './gateway-keys.js';
import { checkRoomName, engineRoomId, ensureRoom } from './gateway-rooms.js';
import { verifyGatewayToken, type GatewayIdentity } from './gateway-token.js';
import { GatewayRefusal } from './refusals.js';

export interface GatewayDeps {
  readonly keys: GatewayKeys;
  readonly rooms: RoomService;
  readonly tokens: Pick<TokenService, 'signJoin'>;
  readonly clock: Clock;
  readonly frontendUrl: string;
  readonly allowAnonymous: boolean;
  readonly waitingRoom: WaitingRoomScope;
  readonly joinTokenTtlSecs: number;
  /** COMPAT_JITSI_MAX_TOKEN_LIFETIME (seconds; 0: no cap). */
  readonly maxTokenLifetimeSecs: number;
  /** New rooms one client may make by arriving without a token, per `openRoomWindowMs` (COMPAT_JITSI_OPEN_ROOMS_PER_CLIENT). */
  readonly openRoomsPerClient: number;
}

/** The window of COMPAT_JITSI_OPEN_ROOMS_PER_CLIENT. */
export const openRoomWindowMs = 10 * 60_000;

/**
 * New rooms per client (its address; for IPv6 its /56, one customer) made by arrivals without a
 * token: each is a durable row, so one client must not make thousands by asking for new names.
 */
function roomCreationLimit(deps: GatewayDeps) {
  const limiter = new AttemptLimiter(deps.clock, { limit: deps.openRoomsPerClient, windowMs: openRoomWindowMs });
  let prunedAt = deps.clock.now().getTime();
  return (ip: string) => () => {
    const client = clientNetwork(ip) ?? clientKey(ip);
    try {
      limiter.check(client);
    } catch (err) {
      if (err instanceof TooManyAttemptsError) throw new GatewayRefusal('too_many_rooms', err.retryAfterSecs);
      throw err;
    }
    limiter.record(client);
    // Clients whose window has passed are forgotten once a window, so memory follows recent clients only.
    const now = deps.clock.now().getTime();
    if (now - prunedAt >= openRoomWindowMs) {
      prunedAt = now;
      limiter.prune();
    }
  };
}

type Query = { jwt?: unknown; displayName?: unknown; lang?: unknown };

/** The embedding API's `lang` (its option, or configOverwrite.defaultLanguage), handed to the page when it is a language tag: the page speaks it if it ships it. */
function languageTag(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/.test(value) ? value : null;
}

/** A name the embedding page passed (`userInfo.displayName`): unsigned, so one that fails the name rule is dropped, not refused. */
function typedName(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const name = cleanName(value, 64);
  return name !== '' && nameProblem(name) === null ? name : null;
}

/** The token's `context.user.name`: the application signed it, so one that impersonates is its mistake, refused. */
function signedName(identity: GatewayIdentity): string | null {
  if (identity.name === null) return null;
  const name = cleanName(identity.name, 64);
  if (name === '') return null;
  if (nameProblem(name) !== null) throw new GatewayRefusal('name_refused');
  return name;
}

/**
 * GET /videoconf/{room} and /{tenant-or-app-id}/videoconf/{room}: the conference entry of
 * the embed gateway. A valid token (or, with open rooms, none) gets the engine room made on
 * first arrival and a 302 to the web client with a join token of our own carrying the role
 * and the origins that may frame the page. The application's JWT goes no further than this
 * request (it is masked in the request log); a refusal is a page that says why (403, 404, or
 * 429 with Retry-After when a client made too many open rooms).
 */
export function gatewayRoutes(deps: GatewayDeps) {
  const creationBy = roomCreationLimit(deps);
  const enter = async (prefix: string | null, room: string, query: Query, ip: string, reply: FastifyReply) => {
    const owner = prefix === null ? null : deps.keys.prefixOwner(prefix);
    try {
      const name = checkRoomName(room);
      const jwt = query.jwt;
      if (jwt !== undefined && typeof jwt !== 'string') throw new GatewayRefusal('token_malformed');
      let identity: GatewayIdentity | null = null;
      if (jwt === undefined || jwt === '') {
        // Open rooms are the primary tenant's: a tenant's rooms are entered with its own tokens only.
        if (!deps.allowAnonymous || (owner !== null && owner.tenantId !== primaryTenantId))
          throw new GatewayRefusal('token_required');
      } else {
        identity = await verifyGatewayToken(jwt, name, {
          pairFor: (iss) => deps.keys.pairFor(iss),
          acceptedAudiences: deps.keys.acceptedAudiences,
          now: deps.clock.now(),
          maxLifetimeSecs: deps.maxTokenLifetimeSecs,
        });
        if (owner !== null && owner.tenantId !== identity.pair.tenantId) throw new GatewayRefusal('wrong_tenant');
      }
      const tenantId = identity?.pair.tenantId ?? primaryTenantId;
      // A prefix that names no tenant is a namespace of its own, as on stock deployments.
      const roomId = engineRoomId(tenantId, prefix !== null && owner === null ? prefix : '', name);
      const displayName = (identity && signedName(identity)) ?? typedName(query.displayName);
      // Open rooms are those an arrival without a token may enter: the primary tenant's.
      await ensureRoom(
        deps.rooms,
        roomId,
        name,
        { waitingRoom: deps.waitingRoom, moderatorSuccession: deps.allowAnonymous && tenantId === primaryTenantId },
        { anonymous: identity === null, mayCreate: creationBy(ip), nowMs: deps.clock.now().getTime() },
      );
      const claims: JoinClaims & { avatar?: string; email?: string } = {
        room: roomId,
        role: identity?.moderator ? 'moderator' : 'participant',
        // Token holders are vouched for by their application; open-room arrivals are bare-link guests.
        source: identity ? 'integration' : 'link',
        embed: identity?.pair.embedOrigins ?? owner?.embedOrigins ?? ['*'],
        ...(displayName !== null ? { name: displayName } : {}),
        ...(identity?.userId ? { uid: identity.userId } : {}),
        // Kept for the embedding API's events (videoConferenceJoined's avatarURL); the page reads them from its own token.
        ...(identity?.avatar ? { avatar: identity.avatar } : {}),
        ...(identity?.email ? { email: identity.email } : {}),
      };
      const token = await deps.tokens.signJoin(claims, deps.joinTokenTtlSecs);
      const search = new URLSearchParams([
        ['t', token],
        ['embed', '1'],
      ]);
      const lang = languageTag(query.lang);
      if (lang !== null) search.set('lang', lang);
      const location = `${deps.frontendUrl}/room/${encodeURIComponent(roomId)}?${search.toString()}`;
      return reply
        .code(302)
        .header('location', location)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send();
    } catch (err) {
      if (!(err instanceof GatewayRefusal)) throw err;
      // A limit's refusals come in floods: at debug, so they cannot flood the log.
      const level = err.retryAfterSecs === null ? 'info' : 'debug';
      reply.log[level]({ refusal: err.code, tenant: owner?.tenantId }, `videoconf arrival refused: ${err.code}`);
      const page = errorPage(err.code, owner?.embedOrigins ?? ['*'], err.message);
      if (err.retryAfterSecs !== null) reply.header('retry-after', String(err.retryAfterSecs));
      return reply.code(page.status).headers(page.headers).send(page.body);
    }
  };

  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { room: string }; Querystring: Query }>('/videoconf/:room', (request, reply) =>
      enter(null, request.params.room, request.query, request.ip, reply),
    );
    app.get<{ Params: { prefix: string; room: string }; Querystring: Query }>(
      '/:prefix/videoconf/:room',
      (request, reply) => enter(request.params.prefix, request.params.room, request.query, request.ip, reply),
    );
  };
}
