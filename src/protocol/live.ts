/**
 * The wire protocol of the live connection (WebSocket `GET /room/{id}/live?session=<session token>`):
 * its messages both ways, its close codes and its error codes. The server and the browser client
 * both import this file. The messages are defined once, as JSON Schemas in live-schemas.ts (the
 * server validates client frames with them); the types here are derived from those schemas and
 * imported as types only, so the page's bundle compiles in the plain constants of
 * live-constants.ts and nothing of typebox (so does dist/protocol/live.js, served as
 * /assets/protocol/live.js for other clients). Browsers cannot set an Authorization header on a
 * WebSocket, hence the query parameter (masked in logs). Every field is snake_case JSON, like the
 * HTTP APIs.
 */
import type { Static } from '#typebox';
import type * as wire from './live-schemas.js';

export {
  closeCodes,
  floodCloseCode,
  isLiveErrorCode,
  liveErrorCodes,
  reactions,
  sfuPeers,
  viewLimit,
  type LiveErrorCode,
} from './live-constants.js';

/** A schema's type as the wire carries it: read-only all the way down (nobody edits a message in place). */
type Wire<T> = T extends readonly (infer Item)[]
  ? readonly Wire<Item>[]
  : T extends object
    ? { readonly [K in keyof T]: Wire<T[K]> }
    : T;

export type Role = Wire<Static<typeof wire.Role>>;
export type ParticipantView = Wire<Static<typeof wire.ParticipantView>>;
export type Locks = Wire<Static<typeof wire.Locks>>;
export type ChatMessage = Wire<Static<typeof wire.ChatMessage>>;
export type SubgroupInfo = Wire<Static<typeof wire.SubgroupInfo>>;
export type WaitingItem = Wire<Static<typeof wire.WaitingItem>>;
export type WaitingOutcome = Wire<Static<typeof wire.WaitingOutcome>>;
export type MediaKind = Wire<Static<typeof wire.MediaKind>>;
export type IceServer = Wire<Static<typeof wire.IceServer>>;
export type Reaction = Wire<Static<typeof wire.Reaction>>;
export type RaisedHand = Wire<Static<typeof wire.RaisedHand>>;
export type SignalData = Wire<Static<typeof wire.SignalData>>;
/** What the server sends; each variant is documented on its schema in live-schemas.ts. */
export type ServerMessage = Wire<Static<typeof wire.ServerMessage>>;
/** What a client sends; each variant is documented on its schema in live-schemas.ts. */
export type ClientMessage = Wire<Static<typeof wire.ClientMessage>>;
