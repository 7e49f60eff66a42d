// SERVICE_ICE_SERVERS and SERVICE_TURN_SECRET (issue 17 point 7, issue 18 point 5): what the
// parsers accept, what they refuse (with the setting named), the rule across the two, masking.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { iceServerList } from '../../../src/config/ice-servers.js';
import { loadConfig, maskedConfig } from '../../../src/config/load.js';
import type { Tap } from '../../helpers/api.js';

const secret = 'coturn-static-auth-secret-0123456789';

function emptyDefaults(t: Tap): string {
  const dir = mkdtempSync(join(tmpdir(), 'meet-ice-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'room-defaults.toml');
  writeFileSync(file, '');
  return file;
}

const load = (t: Tap, env: Record<string, string>) => loadConfig({ configFile: emptyDefaults(t), env });

t.test('accepted addresses, kept in order without duplicates', async (t) => {
  t.same(
    iceServerList(
      ' stun:stun.example.org:3478 , turn:turn.example.org:3478?transport=udp,turns:turn.example.org:5349?transport=tcp,turn:192.0.2.7,turn:[2001:db8::7]:3478,stun:stun.example.org:3478',
    ),
    [
      'stun:stun.example.org:3478',
      'turn:turn.example.org:3478?transport=udp',
      'turns:turn.example.org:5349?transport=tcp',
      'turn:192.0.2.7',
      'turn:[2001:db8::7]:3478',
    ],
  );
  t.same(iceServerList(''), [], 'empty: none');
  t.same(iceServerList(['stun:a.example', 'turns:b.example']), ['stun:a.example', 'turns:b.example'], 'a TOML array');
});

t.test('refused addresses: other schemes, user info, paths, odd encodings, bad ports', async (t) => {
  const refused = [
    'http://turn.example.org',
    'stuns:stun.example.org',
    'turn://turn.example.org:3478',
    'turn:user:pw@turn.example.org',
    'turn:turn.example.org/path',
    'turn:turn.example.org:3478?transport=sctp',
    'turn:turn.example.org:3478?transport=udp&x=1',
    'stun:stun.example.org?transport=udp',
    'turn:turn.example.org:0',
    'turn:turn.example.org:65536',
    'turn:turn.example.org:123456',
    'turn:turn%2eexample.org',
    'turn:tur\u043d.example.org', // a Cyrillic look-alike
    'turn:turn.example.org\u0000',
    'turn:turn.exa mple.org',
    'TURN:turn.example.org',
    'turn:-bad-.example.org',
    'turn:',
    'javascript:alert(1)',
    `turn:${'a'.repeat(64)}.example.org`,
  ];
  for (const raw of refused) {
    t.throws(
      () => iceServerList(raw),
      { message: /^must (list STUN or TURN servers|use ports from 1 to 65535|not give a transport)/ },
      JSON.stringify(raw),
    );
  }
  const long = `turn:${'x'.repeat(500)}/`;
  t.throws(() => iceServerList(long), { message: /…"/ }, 'a long value is shortened in the message');
});

t.test('the loader names the setting; the rule across the two settings', async (t) => {
  t.throws(() => load(t, { SERVICE_ICE_SERVERS: 'turn:user:pw@turn.example.org' }), {
    message: /^SERVICE_ICE_SERVERS must list STUN or TURN servers/,
  });
  t.throws(() => load(t, { SERVICE_ICE_SERVERS: 'turn:turn.example.org' }), {
    message: /SERVICE_ICE_SERVERS lists a TURN server, which needs SERVICE_TURN_SECRET/,
  });
  t.throws(() => load(t, { SERVICE_TURN_SECRET: secret }), {
    message: /SERVICE_TURN_SECRET is set, but SERVICE_ICE_SERVERS lists no turn: or turns: server/,
  });
  for (const bad of ['', '   ', ' padded-secret-0123456789 ', 'short-secret']) {
    let message = '';
    try {
      load(t, { SERVICE_ICE_SERVERS: 'turn:turn.example.org', SERVICE_TURN_SECRET: bad });
    } catch (err) {
      message = (err as Error).message;
    }
    t.match(message, /^SERVICE_TURN_SECRET must/, `refused: ${JSON.stringify(bad)}`);
    if (bad.trim() !== '') t.notOk(message.includes(bad.trim()), 'the refused secret is not in the message');
  }
  const stunOnly = load(t, { SERVICE_ICE_SERVERS: 'stun:stun.example.org' });
  t.same(stunOnly.iceServers, ['stun:stun.example.org'], 'STUN needs no secret');
  t.equal(stunOnly.turnSecret, null);
  const none = load(t, {});
  t.same(none.iceServers, [], 'default: no servers');
});

t.test('the secret is masked wherever the configuration is shown', async (t) => {
  const config = load(t, {
    SERVICE_ICE_SERVERS: 'stun:stun.example.org,turns:turn.example.org:5349',
    SERVICE_TURN_SECRET: secret,
  });
  t.equal(config.turnSecret, secret);
  const masked = maskedConfig(config);
  t.equal(masked.SERVICE_TURN_SECRET, '***');
  t.same(
    masked.SERVICE_ICE_SERVERS,
    ['stun:stun.example.org', 'turns:turn.example.org:5349'],
    'the addresses are not secret',
  );
  t.notMatch(JSON.stringify(masked), new RegExp(secret));
});
