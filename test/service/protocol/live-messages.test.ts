// Issue 30 point 5: the live socket's messages are defined once, as schemas (src/protocol/live-schemas.ts).
// The server checks every client frame with them (compiled once), and whatever a client sends that is
// not a message of the protocol gets the same clean refusal: an `error` of code invalid_message with a
// short sentence naming what is wrong, the socket open, nothing else changed.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { Compile } from 'typebox/compile';
import { parseClientMessage } from '../../../src/http/live/client-messages.js';
import { ClientMessage as clientSchema, ServerMessage as serverSchema } from '../../../src/protocol/live-schemas.js';
import type { ClientMessage } from '../../../src/protocol/live.js';
import { appFor } from '../../helpers/app.js';
import { connectLive } from '../../helpers/live.js';
import { LiveFixture } from '../../helpers/live-fixture.js';
import { createRoom, moderator } from '../../helpers/waiting.js';

const samples: Record<ClientMessage['type'], ClientMessage> = {
  signal: { type: 'signal', to: 'p1', data: { candidate: null } },
  state: { type: 'state', audio: true, video: false, screen: false },
  speaking: { type: 'speaking', speaking: true },
  view: { type: 'view', video: ['p1', 'p2'], large: 'p1' },
  chat: { type: 'chat', text: 'hi' },
  rename: { type: 'rename', name: 'Ann' },
  subject: { type: 'subject', subject: 'Maths' },
  waiting_room: { type: 'waiting_room', enabled: false },
  lock: { type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: true } },
  create_subgroups: { type: 'create_subgroups', count: 2, names: ['Foxes'] },
  move: { type: 'move', participant_id: 'p', room_id: 'r1-g1' },
  assign_subgroups: { type: 'assign_subgroups', participant_ids: ['p'], mode: 'random' },
  subgroup_timer: { type: 'subgroup_timer', minutes: null },
  group_message: { type: 'group_message', text: 'Two minutes left' },
  bring_back: { type: 'bring_back' },
  remove: { type: 'remove', participant_id: 'p' },
  waiting_resync: { type: 'waiting_resync' },
  hand: { type: 'hand', raised: true },
  react: { type: 'react', reaction: 'thumbs_up' },
  mute: { type: 'mute', participant_id: 'p' },
  lower_hand: { type: 'lower_hand', participant_id: 'p' },
  end_meeting: { type: 'end_meeting' },
};

const mb = 'x'.repeat(1024 * 1024);

/** Frames that are not messages of the protocol, each with why. */
const attacks: [string, string][] = [
  ['an extra field', '{"type":"state","audio":true,"video":false,"screen":false,"admin":true}'],
  [
    'an extra field in a nested object',
    '{"type":"lock","locks":{"mic":true,"cam":true,"cams_moderators_only":false,"all":true}}',
  ],
  ['an extra field on a message without fields', '{"type":"waiting_resync","seq":4}'],
  ['a wrong type', '{"type":"state","audio":"yes","video":false,"screen":false}'],
  ['a number for a string', '{"type":"chat","text":5}'],
  ['a float for an integer', '{"type":"create_subgroups","count":1.5}'],
  ['an array for an object', '{"type":"lock","locks":[]}'],
  ['a missing field', '{"type":"move","participant_id":"p"}'],
  ['an empty participant id', '{"type":"remove","participant_id":""}'],
  ['too many ids in a view', JSON.stringify({ type: 'view', video: Array.from({ length: 65 }, (_, i) => `p${i}`) })],
  ['a 1 MB type', JSON.stringify({ type: mb })],
  ['a 1 MB field name', JSON.stringify({ type: 'speaking', speaking: true, [mb]: 1 })],
  ['a 1 MB string where a boolean goes', JSON.stringify({ type: 'speaking', speaking: mb })],
  ['a 1 MB id in a view', JSON.stringify({ type: 'view', video: [mb] })],
  ['__proto__ as the type', '{"type":"__proto__"}'],
  ['constructor as the type', '{"type":"constructor"}'],
  ['toString as the type', '{"type":"toString"}'],
  ['a __proto__ key', '{"type":"state","audio":true,"video":false,"screen":false,"__proto__":{"polluted":true}}'],
  [
    'a nested __proto__ key',
    '{"type":"lock","locks":{"mic":true,"cam":true,"cams_moderators_only":false,"__proto__":{"polluted":true}}}',
  ],
  ['a constructor key', '{"type":"chat","text":"hi","constructor":{"prototype":{"polluted":true}}}'],
  ['a byte-order mark', '\uFEFF{"type":"bring_back"}'],
  ['UTF-16 read as UTF-8', Buffer.from('{"type":"bring_back"}', 'utf16le').toString('utf8')],
  ['a NUL in the type', '{"type":"chat\\u0000","text":"hi"}'],
  ['a lone surrogate as the type', '{"type":"\\ud800"}'],
  ['not JSON', 'nope'],
  ['JSON that is not an object', '[{"type":"chat","text":"hi"}]'],
  ['null', 'null'],
  ['no type', '{"text":"hi"}'],
  ['deep nesting', `{"type":"chat","text":${'['.repeat(5000)}${']'.repeat(5000)}}`],
];

t.test('every client message of the protocol is read as sent, and the samples cover the schema', async (t) => {
  const types = clientSchema.anyOf.map((s) => s.properties.type.const).sort();
  t.same(Object.keys(samples).sort(), types, 'one sample per message of the schema');
  for (const sample of Object.values(samples))
    t.same(parseClientMessage(JSON.stringify(sample)), { ok: true, message: sample }, sample.type);
  t.same(
    parseClientMessage('{"type":"view","video":[]}'),
    { ok: true, message: { type: 'view', video: [] } },
    'large is optional',
  );
});

t.test('what is not a message gets a clean refusal: a short sentence, no exception, nothing polluted', async (t) => {
  for (const [why, raw] of attacks) {
    const parsed = parseClientMessage(raw);
    t.equal(parsed.ok, false, why);
    if (!parsed.ok) t.ok(parsed.message.length > 10 && parsed.message.length < 200, `${why}: ${parsed.message}`);
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was touched');
});

t.test('the refusal names the field at fault', async (t) => {
  const said = (raw: string) => {
    const parsed = parseClientMessage(raw);
    return parsed.ok ? 'accepted' : parsed.message;
  };
  t.equal(said(attacks[0]![1]), 'state: "admin" is not a field of this message');
  t.equal(said(attacks[1]![1]), 'lock: "locks.all" is not a field of this message');
  t.equal(said(attacks[2]![1]), 'waiting_resync: "seq" is not a field of this message');
  t.equal(said(attacks[3]![1]), 'state needs "audio", "video" and "screen": booleans');
  t.equal(said(attacks[17]![1]), 'state: "__proto__" is not a field of this message');
  t.match(said(attacks[10]![1]), /^unknown message type "x{40}…"$/, 'a 1 MB type is cut short in the answer');
  t.match(said(attacks[11]![1]), /^speaking: "x{40}…" is not a field of this message$/, 'and so is a 1 MB field name');
  t.equal(said('{"type":"__proto__"}'), 'unknown message type "__proto__"');
  // The sentences of the hand-written checks they replace, word for word.
  t.equal(said('{"type":"signal","to":""}'), 'signal needs "to": a participant_id');
  t.equal(said(attacks[9]![1]), 'view needs "video": at most 64 participant ids');
  t.equal(said('{"type":"view","video":[],"large":5}'), 'view\'s "large" must be a participant id');
  t.equal(
    said('{"type":"create_subgroups","count":"2"}'),
    'create_subgroups needs "count": an integer, and "names" (optional): at most 20 strings',
  );
  t.equal(said('nope'), 'a message must be a JSON object');
  t.equal(said('{"type":1}'), 'a message must be a JSON object with a string "type"');
});

t.test('through the live meeting, each refusal is an invalid_message error to the sender only', async (t) => {
  const f = new LiveFixture({ live: { messageLimit: { count: 1000, windowMs: 1_000 } } });
  const a = await f.connect(await f.enter('Ann'));
  const b = await f.connect(await f.enter('Bob'));
  b.conn.clear();
  for (const [, raw] of attacks) a.session.receive(parseClientMessage(raw));
  const errors = a.conn.of('error');
  t.equal(errors.length, attacks.length, 'one error per frame');
  t.ok(
    errors.every((e) => e.code === 'invalid_message'),
    'all invalid_message',
  );
  t.same(b.conn.sent, [], 'nobody else heard anything');
  t.same(f.errors, [], 'nothing was logged as a failure');
});

t.test('every message the server sends is one of its schema', async (t) => {
  const check = Compile(serverSchema);
  const ice = {
    serversFor: () => [{ urls: ['turn:turn.example.org'], username: 'u', credential: 'c' }],
    lifetimeMs: 600_000,
  };
  const f = new LiveFixture({ ice });
  f.engine.room({ roomId: 'r2', waitingRoom: 'all' });
  const mod = await f.connect(await f.enter('Mod', 'r1', true));
  const ann = await f.connect(await f.enter('Ann'));
  mod.send({ type: 'state', audio: true, video: true, screen: false });
  f.timers.advance(1_000);
  mod.send({ type: 'speaking', speaking: true });
  mod.send({ type: 'chat', text: 'hello' });
  await f.hub.postSystemChat('r1', 'from the service');
  mod.send({ type: 'subject', subject: 'Maths' });
  await f.settled();
  mod.send({ type: 'lock', locks: { mic: true, cam: false, cams_moderators_only: false } });
  mod.send({ type: 'waiting_room', enabled: true });
  mod.send({ type: 'waiting_resync' });
  ann.send({ type: 'rename', name: 'Anna' });
  await f.settled();
  ann.send({ type: 'lock', locks: { mic: false, cam: false, cams_moderators_only: false } });
  mod.send({ type: 'signal', to: ann.participant.participantId, data: { candidate: null } });
  mod.send({ type: 'create_subgroups', count: 2 });
  await f.settled();
  mod.send({ type: 'move', participant_id: ann.participant.participantId, room_id: 'r1-g1' });
  mod.send({ type: 'bring_back' });
  mod.send({ type: 'remove', participant_id: ann.participant.participantId });
  f.timers.advance(60_000);
  const sent = [...mod.conn.sent, ...ann.conn.sent];
  const misfits = sent
    .filter((m) => !check.Check(m))
    .map((m) => `${JSON.stringify(m).slice(0, 300)}: ${JSON.stringify(check.Errors(m)[0])}`);
  t.same(misfits, [], 'no message off its schema');
  const seen = new Set(sent.map((m) => m.type));
  t.ok(seen.size >= 14, `the scene covers most message types (${[...seen].sort().join(', ')})`);
});

t.test('over a real socket: refused frames are answered and the socket stays open', async (t) => {
  const d = await appFor(t, { listen: true });
  await createRoom(t, d, { room_id: 'class', name: 'Class' });
  const teacher = await moderator(d, 'class');
  const { client } = await connectLive({ url: d.url! }, 'class', teacher.session);
  const small = attacks.filter(([, raw]) => Buffer.byteLength(raw) < 60 * 1024);
  for (const [, raw] of small) client.sendRaw(raw);
  client.socket.send(Buffer.from('{"type":"bring_back"}'), { binary: true });
  await client.until(() => (client.all('error').length >= small.length + 1 ? true : undefined), 'every frame answered');
  t.ok(
    client.all('error').every((e) => e.code === 'invalid_message'),
    'each with invalid_message',
  );
  client.send({ type: 'chat', text: 'still here' });
  t.equal((await client.next('chat')).message.text, 'still here', 'the socket still serves its owner');
  // A frame over the socket's limit (64 KiB) is not read at all: ws closes the socket with 1009 (message too big).
  client.sendRaw(JSON.stringify({ type: 'chat', text: mb }));
  t.equal((await client.closed).code, 1009, 'a 1 MB frame closes the socket without parsing it');
});

t.test("the page's bundle takes types from the schemas, not typebox", async (t) => {
  const bundle = readFileSync(new URL('../../../dist/web/main.js', import.meta.url), 'utf8');
  t.notMatch(bundle, /additionalProperties|typebox/, 'no schema and no validator in the page');
  t.match(bundle, /waiting_resync/, 'but the protocol is there');
  // Other clients load dist/protocol as /assets/protocol/live.js: it must not need typebox either.
  const served = readFileSync(new URL('../../../dist/protocol/live.js', import.meta.url), 'utf8');
  t.notMatch(served, /typebox|live-schemas/, '/assets/protocol/live.js imports the constants only');
});
