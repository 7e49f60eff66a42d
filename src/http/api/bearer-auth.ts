import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessTokenService } from '../../engine/access/access-token-service.js';
import { bearerToken } from '../bearer.js';
import { sendError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Name of the access token that authenticated the request; the actor in records. */
    actor: string | null;
  }
}

/** onRequest hook: runs before the body is read, so an unauthenticated caller learns nothing else. */
export function bearerAuth(tokens: AccessTokenService) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = request.headers.authorization;
    const presented = bearerToken(header);
    const token = presented ? tokens.verify(presented) : null;
    if (!token) {
      reply.header('www-authenticate', header ? 'Bearer realm="meet", error="invalid_token"' : 'Bearer realm="meet"');
      await sendError(
        reply,
        'unauthorized',
        header ? 'the access token is not valid' : 'send Authorization: Bearer <access token>',
      );
      return reply;
    }
    request.actor = token.name;
  };
}
