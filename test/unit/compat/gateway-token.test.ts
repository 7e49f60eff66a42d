// Issue 14 point 6, the pure parts: the duplicate-name scanner, the canonical room form, the
// derived engine room ids and the time rules at their edges (a fixed clock, no daemon).
import t from 'tap';
import { hasDuplicateKeys } from '../../../src/compat/videoconf/duplicate-keys.js';
import { engineRoomId } from '../../../src/compat/videoconf/gateway-rooms.js';
import {
  canonicalRoom,
  defaultMaxLifetimeSecs as maxLifetimeSecs,
  verifyGatewayToken,
  type GatewayPair,
  type TokenRules,
} from '../../../src/compat/videoconf/gateway-token.js';
import { GatewayRefusal } from '../../../src/compat/videoconf/refusals.js';
import { claims, mainAppId, mainSecret, mint } from '../../helpers/gateway.js';

t.test('duplicate names, wherever they are and however they are spelt', async (t) => {
  const cases: [string, boolean][] = [
    ['{"a":1,"b":2}', false],
    ['{"a":1,"a":2}', true],
    ['{"a":1,"\\u0061":2}', true],
    ['{"a":{"b":1},"b":{"a":1}}', false],
    ['{"a":{"b":1,"b":2}}', true],
    ['{"a":[{"b":1},{"b":1}]}', false],
    ['{"a":[{"b":1,"b":1}]}', true],
    ['{"a":"{\\"a\\":1,\\"a\\":2}"}', false],
    ['{"a\\"":1,"a":2}', false],
    ['{"a":"x,\\"a\\":y","b":1}', false],
    ['{}', false],
    ['{"a":{},"a":[]}', true],
    ['[{"x":1},{"x":2}]', false],
  ];
  for (const [json, expected] of cases) {
    JSON.parse(json);
    t.equal(hasDuplicateKeys(json), expected, json);
  }
});

t.test('the canonical room form: NFC, then lower case', async (t) => {
  t.equal(canonicalRoom('Math'), 'math');
  t.equal(canonicalRoom('E\u0301cole'), canonicalRoom('\u00e9COLE'), 'combining and precomposed accents are one room');
  t.equal(engineRoomId('primary', '', 'Math'), engineRoomId('primary', '', 'MATH'), 'one engine room for every case');
  t.not(engineRoomId('acme', '', 'math'), engineRoomId('beta', '', 'math'), "two tenants' math are two rooms");
  t.not(engineRoomId('primary', 'team', 'math'), engineRoomId('primary', '', 'math'), 'a namespace is its own');
  t.not(engineRoomId('a', 'b\0c', 'd'), engineRoomId('a', 'b', 'c\0d'), 'the parts cannot slide into each other');
  t.match(engineRoomId('primary', '', 'x'), /^vc-[0-9a-f]{32}$/, 'a valid engine room id');
});

t.test('time rules at their edges', async (t) => {
  const at = 1_800_000_000;
  const pair: GatewayPair = {
    tenantId: 'primary',
    secret: Buffer.from(mainSecret),
    acceptedIssuers: [mainAppId],
    embedOrigins: ['*'],
  };
  const rules: TokenRules = {
    pairFor: () => pair,
    acceptedAudiences: ['jitsi'],
    now: new Date(at * 1000),
    maxLifetimeSecs,
  };
  const outcome = async (extra: Record<string, unknown>) => {
    try {
      await verifyGatewayToken(mint(claims('r', extra, at)), 'r', rules);
      return 'ok';
    } catch (err) {
      if (err instanceof GatewayRefusal) return err.code;
      throw err;
    }
  };
  t.equal(await outcome({ exp: at }), 'token_expired', 'exp equal to now: expired');
  t.equal(await outcome({ exp: at + 1 }), 'ok', 'exp one second ahead: valid');
  t.equal(await outcome({ nbf: at + 30 }), 'ok', 'nbf 30 s ahead: tolerated');
  t.equal(await outcome({ nbf: at + 31 }), 'token_not_yet_valid', 'nbf 31 s ahead: not yet');
  t.equal(await outcome({ iat: at, exp: at + maxLifetimeSecs }), 'ok', 'a lifetime of exactly 24 h');
  t.equal(await outcome({ iat: at, exp: at + maxLifetimeSecs + 1 }), 'lifetime_too_long', 'one second more');
  t.equal(
    await outcome({ iat: at - 3600, exp: at + maxLifetimeSecs - 3000 }),
    'lifetime_too_long',
    'measured from iat, not from now',
  );
  t.equal(await outcome({ iat: at + 30, exp: at + 3600 }), 'ok', 'iat 30 s ahead: within the clock skew');
  t.equal(await outcome({ iat: at + 31, exp: at + 3600 }), 'issued_in_future', 'iat 31 s ahead: refused');
  t.equal(
    await outcome({ iat: at + 30, exp: at + 30 + maxLifetimeSecs }),
    'lifetime_too_long',
    'a tolerated future iat does not stretch the lifetime',
  );
  t.equal(
    await outcome({ iat: at + 10 * 365 * 86_400, exp: at + 10 * 365 * 86_400 + 3600 }),
    'issued_in_future',
    'a ten-year token issued in the future',
  );
  t.equal(await outcome({ iat: 'yesterday' }), 'token_malformed', 'iat not a number');
  t.equal(await outcome({ nbf: null }), 'token_malformed', 'nbf not a number');
  const star = { ...rules, acceptedAudiences: ['*'] };
  t.equal(
    (await verifyGatewayToken(mint(claims('r', { aud: 'anything' }, at)), 'r', star)).pair,
    pair,
    'aud * accepts any audience',
  );
  await t.rejects(
    verifyGatewayToken(mint(claims('r', { aud: 'anything', iss: 'x' }, at)), 'r', { ...star, pairFor: () => null }),
    { code: 'issuer_not_accepted' },
    'no pair: issuer refused',
  );
  const anyIssuer = { ...rules, pairFor: () => ({ ...pair, acceptedIssuers: ['*'] }) };
  t.equal(
    (await verifyGatewayToken(mint(claims('r', { iss: 'whoever' }, at)), 'r', anyIssuer)).moderator,
    false,
    'iss * accepts any issuer',
  );
});
