import { Type, type Static } from '#typebox';
import { BarField, notAnObject } from '../schemas.js';
import { refusal } from '../validation.js';

export const linkTtl = { fallback: 24 * 3600, max: 30 * 24 * 3600 } as const;

const roleRefusal = refusal({ message: 'role must be one of moderator, participant' });

/**
 * POST /api/rooms/{id}/links. The name's meaning (the display-name rule) is checked by the
 * engine, so a link can never carry a name its room would refuse. A body that is not an object
 * has no role, and is answered so, as it always was.
 */
export const LinkBody = Type.Object(
  {
    role: Type.Enum(['moderator', 'participant'], roleRefusal),
    name: Type.Optional(Type.String(refusal({ message: 'name is required and must be a string' }))),
    ttl_secs: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: linkTtl.max,
        ...refusal({ message: `ttl_secs must be an integer from 60 to ${linkTtl.max}` }),
      }),
    ),
  },
  refusal({ code: 'invalid_field', field: 'role', message: roleRefusal.refusal.message }),
);
export type LinkBody = Static<typeof LinkBody>;

export const ApiRefuseBody = Type.Object({ bar: Type.Optional(BarField) }, refusal(notAnObject));
export type ApiRefuseBody = Static<typeof ApiRefuseBody>;

/** Timeline and attendance: which meeting (absent or empty: the latest). */
export const MeetingQuery = Type.Object({ meeting: Type.Optional(Type.String()) });
export type MeetingQuery = Static<typeof MeetingQuery>;
