// Issue 13, point 2: what `meetctl nginx` renders, checked by real `nginx -t`, and the checks of its inputs (in process).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { nginxPrefixFor, selfSigned } from '../../helpers/nginx.js';
import { checkTlsPair } from '../../../src/ops/tls-files.js';
import {
  checkListen,
  checkNginxPath,
  checkServerName,
  loadTemplate,
  renderNginxSite,
  trusts,
  type NginxSite,
} from '../../../src/ops/nginx-config.js';

const site: NginxSite = {
  serverName: 'meet.example.org',
  engineAddr: { host: '0.0.0.0', port: 3000 },
  compatAddr: { host: '::', port: 8088 },
  trustedProxies: ['127.0.0.1', '::1'],
  tls: null,
  listen: null,
  redirectListen: null,
  legacyApiPath: false,
  accessLog: '/var/log/nginx/meet.access.log',
};

t.test(
  'the rendered site: one limited location for the four room addresses, compat paths, upgrade, forwarding headers',
  async (t) => {
    const text = renderNginxSite(loadTemplate(), site);
    t.match(
      text,
      /^limit_req_zone \$binary_remote_addr zone=meet_rooms:10m rate=10r\/s;$/m,
      'a zone per client address at 10 r/s',
    );
    const limited = /location ~ \^\/room\/\.\+\/\(start\|exists\|knock\|waiting\)\$ \{\n([^}]*)\}/.exec(text);
    t.ok(limited, 'start, exists, knock and waiting share ONE location');
    t.match(
      limited?.[1],
      /limit_req zone=meet_rooms burst=100 nodelay;\n\s+limit_req_status 429;\n\s+proxy_pass http:\/\/meet_engine;/,
    );
    t.equal(text.match(/limit_req zone=meet_rooms /g)?.length, 1, 'no other location shares the room limit');
    t.match(text, /school/i, 'the numbers come with the school-NAT caveat');
    t.match(text, /upstream meet_engine \{ server 127\.0\.0\.1:3000;/, '0.0.0.0 is reached on loopback');
    t.match(text, /upstream meet_compat \{ server \[::1\]:8088;/, ':: is reached on IPv6 loopback');
    for (const path of [
      'location ^~ /confapi/ { proxy_pass http://meet_compat; }',
      'location = /external_api.js { proxy_pass http://meet_compat; }',
      'location ~ ^/[^/]+/external_api\\.js$ { proxy_pass http://meet_compat; }',
    ]) {
      t.ok(text.includes(path), path);
    }
    t.match(
      text,
      /location ~ \^\/room\/\[\^\/\]\+\/live\$ \{[^}]*proxy_set_header Upgrade \$http_upgrade;[^}]*proxy_set_header Connection \$meet_connection_upgrade;/,
    );
    t.match(
      text,
      /proxy_set_header X-Forwarded-For \$remote_addr;/,
      "the client's own X-Forwarded-For is replaced, not appended to",
    );
    t.match(text, /proxy_set_header X-Forwarded-Proto \$scheme;/);
    t.equal(
      text.match(/proxy_set_header X-Forwarded-Host \$host;/g)?.length,
      2,
      'the host the client asked for replaces its own X-Forwarded-Host, on every location (the live one sets its own headers)',
    );
    t.notMatch(text, /bigbluebutton/, 'no legacy path unless asked');
    t.notMatch(text, /ssl|Strict-Transport/, 'http-only has no TLS');
    t.notMatch(text, /include /, 'self-contained: no snippet to install beside it');
    t.match(
      text,
      /nginx connects to them from 127\.0\.0\.1\. The daemon believes X-Forwarded-For only from\n# SERVICE_TRUSTED_PROXIES \(now: 127\.0\.0\.1,::1\)/,
      'the header states where nginx connects from and what the daemon trusts',
    );
  },
);

t.test('meeting-API paths with a tenant: /confapi/ always, all of /bigbluebutton/ with the legacy path', async (t) => {
  const text = renderNginxSite(loadTemplate(), site);
  t.ok(
    text.includes('location ^~ /confapi/ { proxy_pass http://meet_compat; }'),
    'every /confapi/ path, the tenant ones included, goes to the compat listener',
  );
  const legacy = renderNginxSite(loadTemplate(), { ...site, legacyApiPath: true });
  // Issue 29 point 15: a prefix ending in /api/ would answer /bigbluebutton/api with a 301.
  t.ok(
    legacy.includes('location ^~ /bigbluebutton/ { proxy_pass http://meet_compat; }'),
    'the legacy path, tenants and the bare /api included',
  );
  t.notMatch(legacy.replace(/#[^\n]*/g, ''), /location[^\n]*\/api\/ \{/, 'no location ends in /api/');
});

// Issue 28, point 6: tokens, JWTs, passwords and checksums travel in query strings; the access log must not keep them.
t.test(
  'the access log: every server logs with meet_noquery, which holds the path without the query string',
  async (t) => {
    for (const variant of [{}, { tls: { cert: '/c', key: '/k' } }, { legacyApiPath: true }] as Partial<NginxSite>[]) {
      const text = renderNginxSite(loadTemplate(), { ...site, ...variant });
      // Comments may name what is avoided; nginx reads only the statements.
      const statements = text.replace(/#[^\n]*/g, '');
      const format = /^log_format meet_noquery '([^']*)';$/m.exec(statements);
      t.ok(format, 'one log format of its own, at http level');
      t.match(format?.[1], /"\$request_method \$uri \$server_protocol"/, 'the request as method, path, protocol');
      for (const variable of [
        /\$request\b(?!_)/,
        /\$request_uri/,
        /\$args/,
        /\$query_string/,
        /\$arg_/,
        /\$http_referer/,
        /\$request_body/,
      ])
        t.notMatch(format?.[1], variable, `the format has no ${variable.source.replace(/\\/g, '')}`);
      t.equal(statements.match(/^\s*log_format /gm)?.length, 1, 'no other format');
      const servers = statements.match(/^\s*server \{/gm)?.length ?? 0;
      const logs =
        statements.match(/^\s*access_log \/var\/log\/nginx\/meet\.access\.log meet_noquery;$/gm)?.length ?? 0;
      t.equal(
        logs,
        servers,
        `each of the ${servers} server(s) logs with meet_noquery (the http-level default would use combined)`,
      );
      t.notMatch(
        statements,
        /access_log (?!\/var\/log\/nginx\/meet\.access\.log meet_noquery;)/,
        'and no other access log',
      );
    }
    t.match(
      renderNginxSite(loadTemplate(), site),
      /^# Access log: the path only, never the query string\./m,
      "the file's header says why",
    );
    t.match(
      renderNginxSite(loadTemplate(), { ...site, accessLog: null }),
      /^\s+access_log off;$/m,
      '--site-access-log off: none',
    );
    t.throws(() => renderNginxSite(loadTemplate(), { ...site, accessLog: '/var/log/a b.log' }), {
      name: 'NginxInputError',
      field: '--site-access-log',
    });
  },
);

// Issue 28, point 9: with open rooms every new name under /videoconf/ makes a room; nginx limits the arrivals per client.
t.test('the gateway locations share a limit of their own, 429 beyond it', async (t) => {
  const text = renderNginxSite(loadTemplate(), site);
  t.match(text, /^limit_req_zone \$binary_remote_addr zone=meet_gateway:10m rate=5r\/s;$/m);
  for (const location of ['location ^~ /videoconf/ {', 'location ~ ^/[^/]+/videoconf/ {']) {
    const at = text.indexOf(location);
    t.ok(at >= 0, location);
    const body = text.slice(at, text.indexOf('}', at));
    t.match(
      body,
      /limit_req zone=meet_gateway burst=100 nodelay;\n\s+limit_req_status 429;\n\s+proxy_pass http:\/\/meet_compat;/,
      `${location} is limited`,
    );
  }
  t.equal(text.match(/limit_req zone=meet_gateway /g)?.length, 2, 'only the gateway arrivals');
});

t.test('TLS: modern protocols only, HSTS, and a redirect server that keeps a non-default port', async (t) => {
  const text = renderNginxSite(loadTemplate(), {
    ...site,
    tls: { cert: '/etc/ssl/meet.pem', key: '/etc/ssl/meet.key' },
    listen: '127.0.0.1:8443',
    redirectListen: '127.0.0.1:8080',
  });
  t.match(text, /listen 127\.0\.0\.1:8443 ssl;/);
  t.match(text, /ssl_protocols TLSv1\.2 TLSv1\.3;/);
  t.notMatch(text, /TLSv1 |TLSv1\.1|SSLv3/);
  t.match(text, /add_header Strict-Transport-Security "max-age=63072000" always;/);
  t.match(
    text,
    /server \{\n\s+listen 127\.0\.0\.1:8080;\n\s+server_name meet\.example\.org;\n\s+access_log \/var\/log\/nginx\/meet\.access\.log meet_noquery;\n\s+return 301 https:\/\/meet\.example\.org:8443\$request_uri;/,
  );
  const defaults = renderNginxSite(loadTemplate(), { ...site, tls: { cert: '/c', key: '/k' } });
  t.match(defaults, /listen 443 ssl;\n\s+listen \[::\]:443 ssl;/);
  t.match(
    defaults,
    /listen 80;\n\s+listen \[::\]:80;\n\s+server_name meet\.example\.org;\n\s+access_log \/var\/log\/nginx\/meet\.access\.log meet_noquery;\n\s+return 301 https:\/\/meet\.example\.org\$request_uri;/,
  );
});

// Issue 29, point 15: nginx's own 429 was its HTML page without Retry-After, logged at error; `listen PORT` alone is IPv4 only.
t.test("the limits' refusals: one JSON answer with Retry-After for every zone, logged at warn", async (t) => {
  for (const variant of [{}, { tls: { cert: '/c', key: '/k' } }] as Partial<NginxSite>[]) {
    const text = renderNginxSite(loadTemplate(), { ...site, ...variant });
    t.match(text, /^\s+limit_req_log_level warn;$/m);
    t.match(text, /^\s+error_page 429 @meet_limited;$/m, 'at server level: every location with a limit');
    const at = text.indexOf('location @meet_limited {');
    t.ok(at >= 0, 'a named location answers them');
    const body = text.slice(at, text.indexOf('\n    }', at));
    t.match(body, /add_header Retry-After 1 always;/);
    t.match(body, /default_type application\/json;/);
    const json = /return 429 '([^']*)\\n';/.exec(body)?.[1];
    t.same(Object.keys(JSON.parse(json ?? 'null')?.error ?? {}), ['code', 'message'], "the service's error shape");
    // A location with its own add_header inherits none of the server's: HSTS is repeated there.
    if (variant.tls)
      t.match(body, /add_header Strict-Transport-Security "max-age=63072000" always;/, 'HSTS on the refusal too');
    else t.notMatch(body, /Strict-Transport/);
  }
});

t.test('a bare port listens on IPv4 and IPv6; an address listens where it says', async (t) => {
  const bare = renderNginxSite(loadTemplate(), {
    ...site,
    tls: { cert: '/c', key: '/k' },
    listen: '8443',
    redirectListen: '8080',
  });
  t.match(bare, /listen 8443 ssl;\n\s+listen \[::\]:8443 ssl;/);
  t.match(bare, /listen 8080;\n\s+listen \[::\]:8080;\n/);
  t.match(bare, /return 301 https:\/\/meet\.example\.org:8443\$request_uri;/);
  const plain = renderNginxSite(loadTemplate(), { ...site, listen: '8081' });
  t.match(plain, /listen 8081;\n\s+listen \[::\]:8081;\n/);
  const one = renderNginxSite(loadTemplate(), { ...site, listen: '[::1]:8081' });
  t.equal(one.match(/^\s+listen /gm)?.length, 1, 'HOST:PORT: that address only');
});

t.test('server names: host names only, so nothing can become nginx syntax', async (t) => {
  t.equal(checkServerName('Meet.Example.org.'), 'meet.example.org');
  t.equal(checkServerName('xn--mnchen-3ya.de'), 'xn--mnchen-3ya.de');
  for (const bad of [
    'a;b',
    'meet.example.org; include /etc/passwd',
    'a{b',
    'a}b',
    'a\nb',
    'a b',
    'a\tb',
    'münchen.de',
    '"meet"',
    "'meet'",
    'a$host',
    'a#b',
    '',
    '-a.org',
    'a-.org',
    'a..org',
    `${'a'.repeat(64)}.org`,
    '\u202eevil.org',
    'a\u0000b',
  ]) {
    t.throws(() => checkServerName(bad), { name: 'NginxInputError', field: '--server-name' }, JSON.stringify(bad));
  }
});

t.test('listen addresses and file paths: what nginx reads as one word, nothing more', async (t) => {
  for (const good of ['443', '127.0.0.1:8443', '[::1]:443', 'localhost:80'])
    t.equal(checkListen(good, '--listen'), good);
  for (const bad of ['0', '65536', '80 ssl', '80;', '[::1', '[zz]:80', ':80', '1.2.3.4:', 'a b:80', '80\n']) {
    t.throws(() => checkListen(bad, '--listen'), { name: 'NginxInputError', field: '--listen' }, JSON.stringify(bad));
  }
  t.equal(
    checkNginxPath('/etc/ssl/meet.example.org/fullchain.pem', '--tls-cert'),
    '/etc/ssl/meet.example.org/fullchain.pem',
  );
  for (const bad of [
    'relative.pem',
    '/a b.pem',
    '/a;b',
    '/a{b',
    '/a"b',
    "/a'b",
    '/$ssl',
    '/a#b',
    '/a\\b',
    '/a\nb',
    '/ä.pem',
  ]) {
    t.throws(
      () => checkNginxPath(bad, '--tls-cert'),
      { name: 'NginxInputError', field: '--tls-cert' },
      JSON.stringify(bad),
    );
  }
});

t.test('trusted proxies: single addresses and CIDR blocks of both families', async (t) => {
  t.ok(trusts(['127.0.0.1', '::1'], '127.0.0.1'));
  t.notOk(trusts(['127.0.0.1'], '127.0.0.2'));
  t.ok(trusts(['10.0.0.0/8'], '10.1.2.3'));
  t.ok(trusts(['2001:db8::/32'], '2001:db8:1::5'));
  t.notOk(trusts([], '127.0.0.1'), 'none trusts nobody');
});

t.test('the generated file passes nginx -t: http-only, TLS, legacy path', async (t) => {
  const cases: [string, (dir: string) => Partial<NginxSite>][] = [
    ['http-only', () => ({ listen: '127.0.0.1:18080' })],
    [
      'TLS',
      (dir) => ({ tls: selfSigned(dir, 'meet.test'), listen: '127.0.0.1:18443', redirectListen: '127.0.0.1:18080' }),
    ],
    [
      'TLS with the default listen addresses and the legacy path',
      (dir) => ({ tls: selfSigned(dir, 'meet.test'), legacyApiPath: true }),
    ],
    [
      'http-only with the legacy path, IPv6 upstreams',
      () => ({ legacyApiPath: true, engineAddr: { host: '::1', port: 3000 } }),
    ],
  ];
  for (const [name, variant] of cases) {
    await t.test(name, async (t) => {
      const nginx = nginxPrefixFor(t);
      const accessLog = join(nginx.prefix, 'logs', 'meet.access.log');
      writeFileSync(nginx.site, renderNginxSite(loadTemplate(), { ...site, accessLog, ...variant(nginx.prefix) }));
      const verdict = nginx.test();
      t.ok(verdict.ok, verdict.output);
      t.match(verdict.output, /test is successful/);
    });
  }
});

t.test('TLS files: present, PEM, and a pair; the key never printed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'meet-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { cert, key } = selfSigned(dir, 'meet.test');
  const other = mkdtempSync(join(dir, 'other-'));
  const { key: otherKey } = selfSigned(other, 'other.test');
  t.same(checkTlsPair(cert, key, 'meet.test', new Date()), [], 'a matching pair for the name: no warning');
  t.match(checkTlsPair(cert, key, 'meet.example.org', new Date()), [/does not name meet\.example\.org/]);
  t.match(checkTlsPair(cert, key, 'meet.test', new Date(Date.now() + 30 * 86_400_000)), [/expired/]);
  const refused: [string, string, string, RegExp][] = [
    [join(dir, 'nope.pem'), key, '--tls-cert', /does not exist .*ENOENT/],
    [cert, join(dir, 'nope.key'), '--tls-key', /does not exist/],
    [dir, key, '--tls-cert', /is not a regular file/],
    [key, key, '--tls-cert', /is not a PEM certificate/],
    [cert, cert, '--tls-key', /is not an unencrypted PEM private key/],
    [cert, otherKey, '--tls-key', /is not the private key of the certificate/],
  ];
  for (const [c, k, field, message] of refused) {
    const err = (() => {
      try {
        checkTlsPair(c, k, 'meet.test', new Date());
        return null;
      } catch (e) {
        return e as Error & { field?: string };
      }
    })();
    t.equal(err?.field, field, `${c} / ${k}: ${field}`);
    t.match(err?.message, message);
    t.notMatch(err?.message, /PRIVATE KEY/, 'no key material in the message');
  }
});
