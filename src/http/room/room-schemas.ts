import { Type, type Static } from '#typebox';
import { BarField, notAnObject } from '../schemas.js';
import { refusal } from '../validation.js';

// The schemas check shape only; what a name or note may hold is the engine's rule
// (engine/display-name.ts, engine/waiting/knock-fields.ts), so no length is repeated here.

/** start and knock: who arrives. Whether a field is needed depends on the room, so none is required. */
export const ArrivalBody = Type.Object(
  {
    name: Type.Optional(Type.String(refusal({ message: 'name is required and must be a string' }))),
    note: Type.Optional(Type.Union([Type.String(), Type.Null()], refusal({ message: 'note must be a string' }))),
    // A code that is not text is a wrong code, as it was before there were schemas.
    access_code: Type.Optional(
      Type.String(refusal({ code: 'access_code_invalid', message: 'this room needs its access code' })),
    ),
    t: Type.Optional(
      Type.Union(
        [Type.String(), Type.Null()],
        refusal({ code: 'join_token_invalid', message: 'the join link is not valid for this room or has expired' }),
      ),
    ),
  },
  refusal(notAnObject),
);
export type ArrivalBody = Static<typeof ArrivalBody>;

const requestId = Type.String({ minLength: 1, ...refusal({ message: 'request_id is required' }) });

/** A moderator's admit: one request, or everyone waiting (`all: true`). */
export const AdmitBody = Type.Object(
  { all: Type.Optional(Type.Boolean()), request_id: Type.Optional(requestId) },
  refusal(notAnObject),
);
export type AdmitBody = Static<typeof AdmitBody>;

export const RefuseBody = Type.Object({ request_id: requestId, bar: Type.Optional(BarField) }, refusal(notAnObject));
export type RefuseBody = Static<typeof RefuseBody>;

/** GET /room/{id}/exists: `t` once, as text (a repeated `t` is refused, not guessed at). */
export const ExistsQuery = Type.Object({ t: Type.Optional(Type.String()) });
export type ExistsQuery = Static<typeof ExistsQuery>;
