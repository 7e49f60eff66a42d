// Issue 35 point 6: SERVICE_JANUS_URLS, several external Janus servers sharing one API secret and
// one VideoRoom admin key. Bad input names the setting; a password is never echoed; the secrets
// stay masked; SERVICE_JANUS_URL alone works as before.
import t from 'tap';
import { loadConfig, maskedConfig } from '../../../src/config/load.js';

const secrets = {
  SERVICE_JANUS_API_SECRET: 'shared-secret-0123456',
  SERVICE_JANUS_ROOM_ADMIN_KEY: 'shared-adminkey-01234',
};

t.test('a list of Janus servers is read, trimmed, without trailing slashes, secrets masked', async (t) => {
  const config = loadConfig({
    env: { SERVICE_JANUS_URLS: ' http://10.0.0.5:8088/janus/, https://janus2.example.org/janus ', ...secrets },
  });
  t.same(config.janusUrls, ['http://10.0.0.5:8088/janus', 'https://janus2.example.org/janus']);
  t.equal(config.janusUrl, null);
  const masked = JSON.stringify(maskedConfig(config));
  t.notMatch(masked, /shared-secret-0123456|shared-adminkey-01234/);
  t.match(masked, /janus2\.example\.org/, 'the addresses themselves are shown');
});

t.test('unset: no list, and SERVICE_JANUS_URL alone works unchanged', async (t) => {
  t.equal(loadConfig({ env: {} }).janusUrls, null);
  const one = loadConfig({ env: { SERVICE_JANUS_URL: 'http://10.0.0.5:8088/janus', ...secrets } });
  t.equal(one.janusUrl, 'http://10.0.0.5:8088/janus');
  t.equal(one.janusUrls, null);
});

t.test('a TOML array is a list too', async (t) => {
  const dir = t.testdir({
    'room-defaults.toml': '[media]\njanus_urls = ["http://a.example:8088/janus", "http://b.example:8088/janus"]\n',
  });
  const config = loadConfig({ env: secrets, configFile: `${dir}/room-defaults.toml` });
  t.same(config.janusUrls, ['http://a.example:8088/janus', 'http://b.example:8088/janus']);
});

t.test('bad lists are refused with the setting named', async (t) => {
  const refuse = (value: string, message: RegExp, env: Record<string, string> = secrets) =>
    t.throws(() => loadConfig({ env: { SERVICE_JANUS_URLS: value, ...env } }), { message }, value);
  refuse('ftp://10.0.0.5/janus', /SERVICE_JANUS_URLS must list http:\/\/ or https:\/\/ addresses/);
  refuse('http://a.example/janus,not a url', /SERVICE_JANUS_URLS must list http.*"not a url"/);
  refuse(
    'http://a.example/janus,http://a.example/janus/',
    /SERVICE_JANUS_URLS lists "http:\/\/a.example\/janus\/" twice/,
  );
  refuse(' , ', /SERVICE_JANUS_URLS must list at least one/);
  refuse('http://a.example/janus?x=1', /SERVICE_JANUS_URLS must list addresses without query/);
  refuse(Array.from({ length: 65 }, (_, i) => `http://j${i}.example/janus`).join(','), /at most 64/);
  const withPassword = t.throws(() =>
    loadConfig({ env: { SERVICE_JANUS_URLS: 'http://admin:hunter2-secret@a.example/janus', ...secrets } }),
  );
  t.match(String(withPassword), /SERVICE_JANUS_URLS must list addresses without user or password/);
  t.notMatch(String(withPassword), /hunter2-secret/, 'the password is not repeated');
});

t.test('the list needs the shared secrets, and is not given beside SERVICE_JANUS_URL', async (t) => {
  t.throws(() => loadConfig({ env: { SERVICE_JANUS_URLS: 'http://a.example/janus' } }), {
    message: /SERVICE_JANUS_URLS needs SERVICE_JANUS_API_SECRET and SERVICE_JANUS_ROOM_ADMIN_KEY/,
  });
  t.throws(
    () =>
      loadConfig({
        env: {
          SERVICE_JANUS_URLS: 'http://a.example/janus',
          SERVICE_JANUS_API_SECRET: secrets.SERVICE_JANUS_API_SECRET,
        },
      }),
    { message: /SERVICE_JANUS_URLS needs/ },
  );
  t.throws(
    () =>
      loadConfig({
        env: { SERVICE_JANUS_URLS: 'http://a.example/janus', SERVICE_JANUS_URL: 'http://b.example/janus', ...secrets },
      }),
    { message: /SERVICE_JANUS_URLS and SERVICE_JANUS_URL name external Janus servers twice/ },
  );
});
