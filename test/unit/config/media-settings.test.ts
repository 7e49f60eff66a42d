import t from 'tap';
import { loadConfig, maskedConfig } from '../../../src/config/load.js';

t.test(
  'media defaults: auto (Janus when it starts, else the mesh), the Debian program, its own ports, no public IP',
  async (t) => {
    const config = loadConfig({ env: {} });
    t.equal(config.media, 'auto');
    t.equal(config.janusBin, '/usr/bin/janus');
    t.equal(config.janusUrl, null);
    t.same(config.rtpPorts, { min: 40000, max: 40999 });
    t.equal(config.publicIp, null);
    t.equal(config.janusPublishers, 100);
    t.equal(
      config.mediaPrivatePeers,
      false,
      'candidates on private ranges do not reach Janus unless asked (issue 28 point 11)',
    );
  },
);

t.test('media settings are read and checked, and the Janus secrets are masked', async (t) => {
  const config = loadConfig({
    env: {
      SERVICE_MEDIA: 'janus',
      SERVICE_RTP_PORTS: '20000-20100',
      SERVICE_PUBLIC_IP: '203.0.113.7',
      SERVICE_JANUS_URL: 'http://10.0.0.5:8088/janus',
      SERVICE_JANUS_API_SECRET: 'external-secret-0123',
      SERVICE_JANUS_ROOM_ADMIN_KEY: 'external-adminkey-012',
    },
  });
  t.equal(config.media, 'janus');
  t.same(config.rtpPorts, { min: 20000, max: 20100 });
  t.equal(config.publicIp, '203.0.113.7');
  const masked = JSON.stringify(maskedConfig(config));
  t.notMatch(masked, /external-secret-0123|external-adminkey-012/);
});

t.test('wrong media settings name the variable and what is wrong', async (t) => {
  t.throws(() => loadConfig({ env: { SERVICE_MEDIA: 'sfu' } }), {
    message: /SERVICE_MEDIA must be one of mesh, janus, auto/,
  });
  t.throws(() => loadConfig({ env: { SERVICE_RTP_PORTS: '5000-4000' } }), {
    message: /SERVICE_RTP_PORTS must be two ports/,
  });
  t.throws(() => loadConfig({ env: { SERVICE_RTP_PORTS: '80-90' } }), {
    message: /SERVICE_RTP_PORTS must be two ports from 1024/,
  });
  t.throws(() => loadConfig({ env: { SERVICE_PUBLIC_IP: '1.2.3.4"\nnat' } }), {
    message: /SERVICE_PUBLIC_IP must be an IPv4 address/,
  });
  t.throws(() => loadConfig({ env: { SERVICE_PUBLIC_IP: '::1' } }), {
    message: /SERVICE_PUBLIC_IP must be an IPv4 address/,
  });
  const refused = t.throws(() => loadConfig({ env: { SERVICE_JANUS_API_SECRET: 'short-secret!' } }), {
    message: /SERVICE_JANUS_API_SECRET must be 16/,
  });
  t.notMatch(String(refused), 'short-secret!', 'the refused secret is not repeated');
  t.throws(() => loadConfig({ env: { SERVICE_JANUS_PUBLISHERS: '0' } }), { message: /SERVICE_JANUS_PUBLISHERS/ });
  t.throws(() => loadConfig({ env: { SERVICE_MEDIA_PRIVATE_PEERS: 'lan' } }), {
    message: /SERVICE_MEDIA_PRIVATE_PEERS must be one of true, false/,
  });
  t.equal(loadConfig({ env: { SERVICE_MEDIA_PRIVATE_PEERS: 'true' } }).mediaPrivatePeers, true);
});
