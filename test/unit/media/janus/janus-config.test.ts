import t from 'tap';
import { configString, janusConfigFiles, type JanusConfigOptions } from '../../../../src/media/janus/janus-config.js';

const base: JanusConfigOptions = {
  configDir: '/var/lib/meet/janus',
  httpPort: 18088,
  apiSecret: 'a'.repeat(24),
  roomAdminKey: 'b'.repeat(24),
  rtpPorts: { min: 40000, max: 40999 },
  publicIp: '203.0.113.7',
  sessionTimeoutSecs: 60,
  eventLoops: 4,
};

t.test('only VideoRoom and HTTP on loopback, a secret on every request, no admin API, no rooms', async (t) => {
  const files = janusConfigFiles(base);
  t.same(Object.keys(files).sort(), ['janus.jcfg', 'janus.plugin.videoroom.jcfg', 'janus.transport.http.jcfg']);
  const main = files['janus.jcfg'] ?? '';
  t.match(main, `api_secret = "${'a'.repeat(24)}"`);
  t.match(main, 'rtp_port_range = "40000-40999"');
  t.match(main, 'nat_1_1_mapping = "203.0.113.7"');
  t.match(main, 'session_timeout = 60');
  t.match(main, /^ {2}reclaim_session_timeout = 10$/m, 'a session stays claimable by a node taking a meeting over');
  t.notMatch(main, 'libjanus_videoroom.so', 'the VideoRoom plugin is not in the disabled list');
  t.match(main, 'libjanus_streaming.so', 'other plugins are disabled');
  t.match(main, 'libjanus_websockets.so', 'the WebSocket transport is disabled');
  const http = files['janus.transport.http.jcfg'] ?? '';
  t.match(http, 'ip = "127.0.0.1"');
  t.match(http, 'port = 18088');
  t.match(http, 'admin_http = false');
  const room = files['janus.plugin.videoroom.jcfg'] ?? '';
  t.match(room, `admin_key = "${'b'.repeat(24)}"`);
  t.notMatch(room, /room-\d+/, 'no demo rooms');
  t.notMatch(janusConfigFiles({ ...base, publicIp: null })['janus.jcfg'] ?? '', 'nat_1_1_mapping');
});

t.test('values that would break or widen the configuration are refused', async (t) => {
  t.throws(() => janusConfigFiles({ ...base, httpPort: 70000 }), /HTTP port/);
  t.throws(() => janusConfigFiles({ ...base, rtpPorts: { min: 5000, max: 4000 } }), /RTP port range/);
  t.throws(() => janusConfigFiles({ ...base, apiSecret: 'short' }), /API secret/);
  t.throws(() => janusConfigFiles({ ...base, apiSecret: 'a'.repeat(20) + '"\nadmin_http = true' }), /API secret/);
  t.throws(() => janusConfigFiles({ ...base, publicIp: '1.2.3.4"\nx' }), /public IP/);
  t.throws(() => janusConfigFiles({ ...base, sessionTimeoutSecs: 0 }), /session timeout/);
  for (const eventLoops of [0, -1, 1.5, 257, Number.NaN])
    t.throws(() => janusConfigFiles({ ...base, eventLoops }), /event loops/, `${eventLoops} event loops`);
  t.throws(() => configString('a\nb'), /control characters/);
  t.equal(configString('a"b\\c'), '"a\\"b\\\\c"');
});

// Issue 36 point 5: Janus's default, a thread per handle, wakes each viewer's thread for each
// packet relayed to it; shared loops halved Janus's CPU per packet in the sfu bench.
t.test('media handles share the given number of event loops', async (t) => {
  const general = (janusConfigFiles({ ...base, eventLoops: 2 })['janus.jcfg'] ?? '').split('\n}')[0] ?? '';
  t.match(general, /^general: \{/, 'the general section');
  t.match(general, /\n {2}event_loops = 2\n/, 'holds event_loops');
  t.notMatch(janusConfigFiles(base)['janus.jcfg'] ?? '', 'allow_loop_indication', 'no client may pick a loop');
});
