import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Participant } from '../../engine/meetings/meeting.js';
import type { EngineServices } from '../../engine/services.js';
import type { JoinClaims, SessionClaims } from '../../engine/tokens/token-service.js';
import type { Arrival } from '../../engine/waiting/admission.js';
import type { EntryResult, PollResult } from '../../engine/waiting/waiting-room-types.js';
import { noteEvent } from '../../platform/access-log.js';
import { EngineError, invalidField } from '../../engine/errors.js';
import { clientKey, clientNetwork } from '../../platform/client-key.js';
import { HttpError } from '../errors.js';
import { absentBodyIsEmpty, RoomParams } from '../schemas.js';
import { defaultTurnCredentialTtlSecs, iceServersFor, type IceSettings } from './ice-servers.js';
import { AdmitBody, ArrivalBody, ExistsQuery, RefuseBody } from './room-schemas.js';
import { presentedSession, requireSession, signSession } from './session.js';
import { readWaitingCookie, setWaitingCookie } from './waiting-cookie.js';

type WithId = { Params: RoomParams };
type WithBody<B> = WithId & { Body: B };
const withId = { schema: { params: RoomParams } };
/** Routes whose body may be absent: no body is no fields (absentBodyIsEmpty). */
const withBody = <B>(body: B) => ({ schema: { params: RoomParams, body }, preValidation: absentBodyIsEmpty });

/** A join token (`t`) names the room it was made for; any other room refuses it. */
async function claimsOf(
  services: EngineServices,
  roomId: string,
  t: string | null | undefined,
): Promise<JoinClaims | null> {
  if (t === undefined || t === null || t === '') return null;
  const claims = await verifiedLink(services, roomId, t);
  if (!claims || claims.room !== roomId)
    throw new HttpError('join_token_invalid', 'the join link is not valid for this room or has expired', 't');
  return claims;
}

/** A join token's claims: good while unexpired, or for the whole meeting open in its room if it was good when that began. */
function verifiedLink(services: EngineServices, roomId: string, t: string): Promise<JoinClaims | null> {
  const open = services.meetings.current(roomId);
  return services.tokens.verifyJoin(t, open ? new Date(open.startedAt) : null);
}

/** Whether `t` is a valid join token for this room (a wrong or absent one is simply no). */
async function tokenFor(services: EngineServices, roomId: string, t: string | undefined): Promise<boolean> {
  const claims = t ? await verifiedLink(services, roomId, t) : null;
  return claims?.room === roomId;
}

/** A participant's link made from inside the meeting (Copy invite link): as good as the room's bare address, never a moderator's. */
const inviteTtlSecs = 24 * 3600;

async function arrival(services: EngineServices, request: FastifyRequest<WithBody<ArrivalBody>>): Promise<Arrival> {
  const body = request.body;
  const roomId = request.params.id;
  // Fastify works request.ip out through the trusted proxy's header on every read: read it once.
  const ip = request.ip;
  return {
    roomId,
    name: body.name,
    note: body.note,
    accessCode: body.access_code,
    claims: await claimsOf(services, roomId, body.t),
    fromParticipantId: (await presentedSession(services, request))?.participant ?? null,
    clientKey: clientKey(ip),
    clientNetwork: clientNetwork(ip),
    secret: readWaitingCookie(request) ?? null,
  };
}

/**
 * What an admitted person is handed: her session, and the STUN/TURN servers (with TURN
 * credentials of her own) her media needs. Never with a waiting answer: a waiting person has
 * no media, and a TURN credential would let her relay through the server.
 */
async function admittedAs(services: EngineServices, ice: IceSettings, participant: Participant) {
  return {
    session: await signSession(services, participant),
    ice_servers: iceServersFor(ice, participant.participantId, services.clock),
  };
}

async function joined(services: EngineServices, ice: IceSettings, result: EntryResult) {
  return { status: 'joined', ...(await admittedAs(services, ice, result.participant)), role: result.participant.role };
}

/** The addresses every arriving person calls, and the moderators' gestures with a session. */
export function roomRoutes(
  services: EngineServices,
  ice: IceSettings = { iceServers: [], turnSecret: null, turnCredentialTtlSecs: defaultTurnCredentialTtlSecs },
) {
  // A moderator's gesture asks for the session before it reads the body, so who holds none is
  // answered 401 whatever she sent, as before the bodies had schemas (validation runs after this).
  const sessions = new WeakMap<FastifyRequest, SessionClaims>();
  const sessionOf = (request: FastifyRequest): SessionClaims => sessions.get(request)!;
  const withSessionAndBody = <B>(body: B) => ({
    schema: { params: RoomParams, body },
    preValidation: [
      async (request: FastifyRequest<WithId>) =>
        void sessions.set(request, await requireSession(services, request, request.params.id)),
      absentBodyIsEmpty,
    ],
  });
  return async (app: FastifyInstance): Promise<void> => {
    // An unlisted room (a meeting API's) shows itself only to a join token made for it, and a
    // closed one to nobody: for everyone else the answer is that of a room that does not exist.
    app.get<WithId & { Querystring: ExistsQuery }>(
      '/room/:id/exists',
      { schema: { params: RoomParams, querystring: ExistsQuery } },
      async (request, reply) => {
        const room = await services.rooms.find(request.params.id);
        const linkGood =
          room !== null && request.query.t ? await tokenFor(services, room.roomId, request.query.t) : null;
        const shown = room !== null && room.entry !== 'closed' && (!room.unlisted || linkGood === true);
        if (!shown) return reply.code(404).send({ exists: false });
        // With a link, whether it still lets her in: the page says an expired link at once, before any name step.
        return {
          exists: true,
          access_code: room.accessCodeHash !== null,
          ...(linkGood === null ? {} : { link_valid: linkGood }),
        };
      },
    );

    app.post<WithBody<ArrivalBody>>('/room/:id/start', withBody(ArrivalBody), async (request) => {
      const result = await services.waiting.start(await arrival(services, request));
      return result.status === 'joined' ? joined(services, ice, result) : { status: 'knock' };
    });

    app.post<WithBody<ArrivalBody>>('/room/:id/knock', withBody(ArrivalBody), async (request, reply) => {
      const result = await services.waiting.knock(await arrival(services, request));
      if (result.status === 'joined') return joined(services, ice, result);
      setWaitingCookie(request, reply, request.params.id, result.secret);
      noteEvent(request, 'knock', { room: request.params.id, request: result.requestId });
      return reply.code(202).send({ status: 'waiting' });
    });

    // Everyone waiting polls every 2 s: the poll reads memory (an expiry it finds is written).
    // Not an async handler: a waiting answer is sent with no promise made (issue 36 point 4).
    const pollAnswered = (result: PollResult | null): object => {
      if (!result) throw new HttpError('not_found', 'this browser has no waiting request in this room');
      if (result.status === 'admitted')
        return admittedAs(services, ice, result.participant).then((given) => ({ status: 'admitted', ...given }));
      // A barred browser keeps its cookie: it is how a reload or a new knock is known as barred.
      return result;
    };
    app.get<WithId>('/room/:id/waiting', withId, (request) => {
      const secret = readWaitingCookie(request);
      const result = secret ? services.waiting.poll(request.params.id, secret) : null;
      return result instanceof Promise ? result.then(pollAnswered) : pollAnswered(result);
    });

    // The Leave button: withdrawn at once. The cookie stays: for a barred browser it is the
    // bar itself, and after a withdrawal it names nothing.
    app.delete<WithId>('/room/:id/waiting', withId, async (request, reply) => {
      const secret = readWaitingCookie(request);
      if (secret) await services.waiting.withdraw(request.params.id, secret);
      return reply.code(204).send();
    });
    // The pagehide beacon (sendBeacon can only POST): gone from the moderators' list at once,
    // freed within 2 s, unless the same browser polls again because it was only a reload.
    app.post<WithId>('/room/:id/waiting/leave', withId, async (request, reply) => {
      const secret = readWaitingCookie(request);
      if (secret) await services.waiting.leaving(request.params.id, secret);
      return reply.code(204).send();
    });

    app.get<WithId>('/room/:id/waiting-list', withId, async (request) => {
      const session = await requireSession(services, request, request.params.id);
      return services.waiting.list(request.params.id, { kind: 'participant', participantId: session.participant });
    });

    app.post<WithBody<AdmitBody>>('/room/:id/admit', withSessionAndBody(AdmitBody), async (request) => {
      const session = sessionOf(request);
      const actor = { kind: 'participant', participantId: session.participant } as const;
      const { all, request_id: requestId } = request.body;
      // One request or all of them: which one is needed depends on the other field.
      if (all !== true && requestId === undefined) throw invalidField('request_id', 'request_id is required');
      const id = all === true ? null : requestId!;
      const result = await (id === null
        ? services.waiting.admitAll(request.params.id, actor)
        : services.waiting.admit(request.params.id, id, actor));
      noteEvent(request, 'admit', {
        room: request.params.id,
        ...(id === null ? { all: true } : { request: id }),
        admitted: result.admitted,
        by: session.participant,
      });
      return result;
    });

    app.post<WithBody<RefuseBody>>('/room/:id/refuse', withSessionAndBody(RefuseBody), async (request) => {
      const session = sessionOf(request);
      const { request_id: id, bar = false } = request.body;
      await services.waiting.refuse(request.params.id, id, bar, {
        kind: 'participant',
        participantId: session.participant,
      });
      noteEvent(request, bar ? 'bar' : 'refuse', { room: request.params.id, request: id, by: session.participant });
      return { refused: true, barred: bar };
    });

    app.post<WithId>('/room/:id/waiting-room/disable', withId, async (request) => {
      const session = await requireSession(services, request, request.params.id);
      return services.waiting.disableWaitingRoom(request.params.id, {
        kind: 'participant',
        participantId: session.participant,
      });
    });

    // Copy invite link: a moderator's, and it carries only a participant's rights (and no name).
    app.post<WithId>('/room/:id/invite', withId, async (request) => {
      const session = await requireSession(services, request, request.params.id);
      // Her role now (an open room's successor became one after her session was signed).
      if (services.meetings.participant(session.participant)?.role !== 'moderator')
        throw new EngineError('not_moderator', 'only a moderator of this meeting may copy its invite link');
      const token = await services.tokens.signJoin(
        { room: request.params.id, role: 'participant', source: 'link' },
        inviteTtlSecs,
      );
      return { url: `/room/${encodeURIComponent(request.params.id)}?t=${token}` };
    });

    app.post<WithId>('/room/:id/leave', withId, async (request, reply) => {
      const session = await requireSession(services, request, request.params.id);
      await services.meetings.leave(session.participant);
      return reply.code(204).send();
    });
  };
}
