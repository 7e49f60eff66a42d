import { Ajv, type ValidateFunction } from 'ajv';
import type { Incoming } from '../../engine/live/outbox.js';
import { reactions, viewLimit, type ClientMessage } from '../../protocol/live.js';
import { ClientMessage as clientMessageSchema } from '../../protocol/live-schemas.js';

type ClientType = ClientMessage['type'];

const bad = (message: string): Incoming => ({ ok: false, message });

/** What each message needs, said when a frame of its type is not of its shape (the wording clients have always had). */
const needs: Readonly<Record<ClientType, string>> = {
  signal: 'signal needs "to": a participant_id',
  state: 'state needs "audio", "video" and "screen": booleans',
  speaking: 'speaking needs "speaking": a boolean',
  view: `view needs "video": at most ${viewLimit} participant ids`,
  chat: 'chat needs "text": a string',
  rename: 'rename needs "name": a string',
  subject: 'subject needs "subject": a string',
  waiting_room: 'waiting_room needs "enabled": a boolean',
  lock: 'lock needs "locks": {mic, cam, cams_moderators_only}, three booleans',
  create_subgroups: 'create_subgroups needs "count": an integer, and "names" (optional): at most 20 strings',
  assign_subgroups:
    'assign_subgroups needs "participant_ids": 1 to 500 participant ids, and "mode": "even" or "random"',
  subgroup_timer: 'subgroup_timer needs "minutes": an integer or null',
  group_message: 'group_message needs "text": a string',
  move: 'move needs "participant_id" and "room_id": strings',
  bring_back: 'bring_back has no fields',
  remove: 'remove needs "participant_id": a participant_id',
  waiting_resync: 'waiting_resync has no fields',
  mute: 'mute needs "participant_id": a participant_id',
  end_meeting: 'end_meeting has no fields',
  hand: 'hand needs "raised": a boolean',
  lower_hand: 'lower_hand needs "participant_id": a participant_id',
  react: `react needs "reaction": one of ${reactions.join(', ')}`,
};

// Ajv, which the listener's routes already load, rather than typebox's own compiler: that one
// brought about 300 more modules into every start of the daemon (a fifth of its CPU to
// "listening"). Each type is compiled on its first frame, into generated code, not a walk of the
// schema. A Map, so a "type" such as "__proto__" or "constructor" finds nothing.
const schemas = new Map(clientMessageSchema.anyOf.map((schema) => [schema.properties.type.const as string, schema]));
const validators = new Map<string, ValidateFunction>();
let ajv: Ajv | undefined;

function validatorOf(type: string): ValidateFunction | undefined {
  let validator = validators.get(type);
  if (validator) return validator;
  const schema = schemas.get(type);
  if (!schema) return undefined;
  // allErrors: an unknown field is named even when another field is wrong too.
  ajv ??= new Ajv({ allErrors: true });
  validator = ajv.compile(schema);
  validators.set(type, validator);
  return validator;
}

/** A name a client chose, quoted and cut short: it goes back in a sentence, never 1 MB of it. */
const quoted = (name: string): string => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads one text frame of a client against the protocol's schemas (protocol/live-schemas.ts).
 * Checks shapes only (types, presence, no unknown field); what a message may do (roles, locks,
 * lengths of chat) is decided by the engine's live meeting.
 */
export function parseClientMessage(raw: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return bad('a message must be a JSON object');
  }
  if (!isObject(value) || typeof value.type !== 'string')
    return bad('a message must be a JSON object with a string "type"');
  const type = value.type as ClientType;
  const validator = validatorOf(type);
  if (!validator) return bad(`unknown message type ${quoted(value.type)}`);
  if (validator(value)) return { ok: true, message: value as ClientMessage };
  const errors = validator.errors ?? [];
  const unknown = errors.find((e) => e.keyword === 'additionalProperties');
  const extra = (unknown?.params as { additionalProperty?: string } | undefined)?.additionalProperty;
  if (unknown && extra !== undefined) {
    const path = [...unknown.instancePath.split('/').slice(1), extra].join('.');
    return bad(`${type}: ${quoted(path)} is not a field of this message`);
  }
  if (type === 'view' && errors.some((e) => e.instancePath === '/large'))
    return bad('view\'s "large" must be a participant id');
  return bad(needs[type]);
}
