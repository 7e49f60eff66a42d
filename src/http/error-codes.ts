import type { EngineErrorCode } from '../engine/errors.js';

/** Failures that only the HTTP surface knows (framing, authentication). */
export type HttpErrorCode =
  | 'invalid_json'
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'csrf_refused'
  | 'sso_state_invalid'
  | 'sso_response_invalid'
  | 'sso_unavailable'
  | 'not_found'
  | 'precondition_failed'
  | 'range_not_satisfiable'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'join_token_invalid'
  | 'store_unavailable'
  /** Cluster (issue 35): the room is served by another node, named in the answer. */
  | 'room_elsewhere'
  /** Cluster: this node lost the room's lease while serving the request; nothing was written. */
  | 'lease_lost'
  /** Cluster (point 3): the node serving the room did not answer a forwarded request; retry (Retry-After). */
  | 'owner_unreachable'
  | 'internal_error';

export type ErrorCode = EngineErrorCode | HttpErrorCode;
