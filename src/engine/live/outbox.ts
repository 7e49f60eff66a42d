import type { ClientMessage, ServerMessage } from '../../protocol/live.js';

/**
 * The live meeting's way out to one connection: the socket code (http/live/live-routes.ts)
 * implements it over a WebSocket, tests with a recording fake. The engine never sees a socket.
 */
export interface Outbox {
  /** One message to this connection (dropped once it is closed). */
  send(message: ServerMessage): void;
  /** Closes the connection with a close code (closeCodes of the wire, or 1000) and a reason. */
  close(code: number, reason: string): void;
}

/** One frame of a client as the socket code read it: a message of the wire, or why it is not one. */
export type Incoming =
  { readonly ok: true; readonly message: ClientMessage } | { readonly ok: false; readonly message: string };

/** What the socket code calls for the life of one connection. */
export interface LiveSession {
  readonly participantId: string;
  /** One frame from the client, parsed. */
  receive(incoming: Incoming): void;
  /** The connection closed (whoever closed it). */
  closed(): void;
}
