// Issue 29 point 13: install, nginx --install and serve run doctor's relevant checks first and
// stop with doctor's own line and hint (exit 69 for the machine, 2 for a file or setting), from
// the env file install wrote, as systemd would start the daemon.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../../helpers/cli.js';
import { runMeetctl } from '../../helpers/daemon.js';
import { lineOf } from '../../helpers/doctor.js';
import { world, type World } from '../../helpers/install-world.js';
import { testServerKey } from '../../helpers/licence.js';
import { certificateBetween, freePorts, nginxBin, nginxPrefixFor } from '../../helpers/nginx.js';

t.setTimeout(240_000);

const dayMs = 86_400_000;

async function installed(
  t: Parameters<typeof world>[0],
  key?: string,
  ports: readonly [number, number] = [0, 0],
): Promise<World> {
  const w = world(t);
  const result = await w.install([
    '--key',
    key ?? (await testServerKey()),
    '--no-open-rooms',
    '--yes',
    '--http-addr',
    `127.0.0.1:${ports[0]}`,
    '--compat-http-addr',
    `127.0.0.1:${ports[1]}`,
  ]);
  t.equal(result.code, 0, result.stderr);
  return w;
}

/** doctor against the same install, reading the same env file: the failed check's line and hint. */
async function doctorLine(
  w: World,
  title: string,
  more: string[] = [],
  env: Record<string, string> = {},
): Promise<[string, string]> {
  const result = await runCli(
    [
      'doctor',
      '--config-dir',
      w.etc,
      '--nginx-file',
      join(w.root, 'absent.conf'),
      '--nginx-bin',
      join(w.root, 'no-nginx'),
      ...more,
    ],
    env,
  );
  return lineOf(result.stdout, title);
}

/** The two lines a refused command prints: `meetctl: <title>: <detail>` and `  hint: …`. */
function refusal(stderr: string): [string, string] {
  const lines = stderr.split('\n');
  const at = lines.findIndex((l) => l.startsWith('meetctl: ') && !l.startsWith('meetctl: warning:'));
  return [lines[at] ?? '(none)', lines[at + 1] ?? ''];
}

t.test(
  "serve: SERVICE_MEDIA=janus without Janus stops before the daemon starts, exit 69, with doctor's line and hint",
  async (t) => {
    const w = await installed(t);
    const noJanus = { SERVICE_MEDIA: 'janus', SERVICE_JANUS_BIN: join(w.root, 'no-janus') };
    // Only what systemd's EnvironmentFile= hands the daemon, plus the media choice.
    const serve = await runMeetctl(['serve'], { ...w.envFile(), ...noJanus });
    t.equal(serve.code, 69, serve.stderr);
    const [message, hint] = refusal(serve.stderr);
    t.match(
      message,
      /^meetctl: Janus: SERVICE_MEDIA=janus but .*no-janus \(SERVICE_JANUS_BIN\) is not an executable program: the daemon will not start$/,
    );
    t.match(hint, /^ {2}hint: install Janus \(apt install janus\)/);
    t.equal(serve.stdout, '', 'no log line: the daemon never started');
    const [line, doctorHint] = await doctorLine(w, 'Janus', [], noJanus);
    t.equal(line, `✗ ${message.slice('meetctl: '.length)}`, 'doctor prints the same finding');
    t.equal(doctorHint.trim(), hint.trim(), 'and the same hint');
  },
);

t.test(
  'a clock behind the installed licence: serve and a second install stop with exit 69 and write nothing',
  async (t) => {
    // The licence was issued "two years from now": this machine's clock went back after the install.
    const w = await installed(t, await testServerKey({ days: 365 }, new Date(Date.now() + 2 * 365 * dayMs)));
    const serve = await runMeetctl(['serve'], w.envFile());
    t.equal(serve.code, 69, serve.stderr);
    const [message, hint] = refusal(serve.stderr);
    t.match(
      message,
      /^meetctl: Clock: the clock reads \S+, but the compat licence was issued at \S+: the clock is behind$/,
    );
    t.match(hint, /timedatectl set-ntp true/);
    const [line] = await doctorLine(w, 'Clock');
    t.match(line, /^✗ Clock: the clock reads .* the compat licence was issued at .*: the clock is behind$/);

    const envBefore = readFileSync(join(w.etc, 'meet.env'), 'utf8');
    const again = await w.install(['--key', await testServerKey(), '--no-open-rooms', '--yes']);
    t.equal(again.code, 69, again.stderr);
    t.match(refusal(again.stderr)[0], /^meetctl: Clock: .*the clock is behind$/);
    t.notMatch(again.stderr, /verifying the server key/, 'stopped before the key was looked at');
    t.equal(readFileSync(join(w.etc, 'meet.env'), 'utf8'), envBefore, 'the env file is untouched');
  },
);

t.test(
  'nginx --install: an expired certificate stops it (exit 2) before the site is written; a valid one goes on to nginx -t',
  async (t) => {
    const w = await installed(t, undefined, await freePorts(2));
    const nginx = nginxPrefixFor(t, { debian: true });
    const [port, redirect] = await freePorts(2);
    const expired = certificateBetween(
      w.keys,
      'meet.example.org',
      new Date('2024-01-01T00:00:00Z'),
      new Date('2025-01-01T00:00:00Z'),
    );
    const args = (tls: { cert: string; key: string }) => [
      'nginx',
      '--env-file',
      join(w.etc, 'meet.env'),
      '--tls-cert',
      tls.cert,
      '--tls-key',
      tls.key,
      '--listen',
      `127.0.0.1:${port}`,
      '--redirect-listen',
      `127.0.0.1:${redirect}`,
      '--site-access-log',
      nginx.accessLog,
      '--install',
      ...nginx.siteArgs,
      '--nginx-bin',
      nginxBin,
    ];
    const refused = await runCli(args(expired), w.env);
    t.equal(refused.code, 2, refused.stderr);
    const [message, hint] = refusal(refused.stderr);
    t.equal(
      message,
      `meetctl: TLS certificate: ${expired.cert} expired on 2025-01-01T00:00:00.000Z: browsers refuse the site`,
    );
    t.match(hint, /^ {2}hint: renew it \(certbot renew, or your CA\)/);
    t.notOk(existsSync(nginx.site), 'no site file written');
    t.notMatch(refused.stderr, /nginx -t/, 'nginx was not run');

    const fresh = certificateBetween(
      w.keys,
      'meet.example.org',
      new Date(Date.now() - dayMs),
      new Date(Date.now() + 90 * dayMs),
    );
    // Joins sent to a local address while the site serves a public name: doctor's Join address, before anything is written.
    const local = await runCli([...args(fresh), '--server-name', 'meet.example.org'], {
      ...w.env,
      SERVICE_PUBLIC_URL: 'http://localhost:3000',
    });
    t.equal(local.code, 2, local.stderr);
    t.match(
      refusal(local.stderr)[0],
      /^meetctl: Join address: joins go to http:\/\/localhost:3000 .* serves meet\.example\.org: people's browsers cannot reach it$/,
    );
    t.match(refusal(local.stderr)[1], /set SERVICE_PUBLIC_URL=https:\/\/meet\.example\.org/);
    t.notOk(existsSync(nginx.site), 'still no site file');

    const accepted = await runCli(args(fresh), w.env);
    t.match(accepted.stderr, /✓ testing the nginx configuration \(nginx -t\)/, 'past the preflight, nginx -t passes');
    t.equal(accepted.code, 69, 'and the reload fails only because this nginx is not running');
    t.ok(existsSync(nginx.site));
    const [line, doctorHint] = await doctorLine(w, 'TLS certificate', ['--nginx-file', nginx.site]);
    t.match(
      line,
      /^✓ TLS certificate: .* \(89 days left\)$/,
      `doctor reads the installed site's certificate: ${line} ${doctorHint}`,
    );
  },
);
