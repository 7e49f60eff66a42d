/** A healthy installation in temp directories for `meetctl doctor`, and the assertions its tests share. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueServerKey, licenceKeyPair } from '../../src/licence/server-key.js';
import type { Tap } from './api.js';
import { recordServerKey } from './licence.js';
import { runCli } from './cli.js';
import { meetctl, type CliResult } from './daemon.js';

export const checkIds = [
  'node',
  'env-file',
  'config',
  'data-dir',
  'disk-space',
  'database',
  'database-version',
  'database-migrations',
  'database-rights',
  'nats',
  'cluster',
  'cluster-clocks',
  'clock',
  'engine-port',
  'compat-port',
  'media-network',
  'janus',
  'licence',
  'tenants',
  'secrets',
  'nginx-file',
  'nginx-test',
  'nginx-lines',
  'listeners',
  'nginx-upstreams',
  'nginx-log',
  'certificate',
  'public-url',
  'systemd-unit',
  'ownership',
];
export const nodeMajor = Number(process.versions.node.split('.')[0]);

export const apiSecret = 'PrimaryApiSecret-0123456789abcdefghijklmnop';
export const jitsiSecret = 'JitsiAppSecret-0123456789abcdefghijklmnopqrs';
export const tenantApi = 'AcmeApiSecret-0123456789abcdefghijklmnopqrstu';
export const tenantApp = 'AcmeAppSecret-0123456789abcdefghijklmnopqrstu';
export const turnSecret = 'TurnRestSecret-0123456789abcdefghijklmnopq';

export function listening(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

import { freePort, freePorts } from './net.js';

export { freePort };

export const siteText = (enginePort: number, compatPort = enginePort + 2) => `# the room addresses' limit
limit_req_zone $binary_remote_addr zone=meet_rooms:10m rate=10r/s;
server {
    listen 127.0.0.1:${enginePort + 1};
    location ~ ^/room/[^/]+/(start|exists|knock|waiting)$ {
        limit_req zone=meet_rooms burst=100 nodelay;
        limit_req_status 429;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_pass http://127.0.0.1:${enginePort};
    }
    access_log off;
    location /confapi/ { proxy_pass http://127.0.0.1:${compatPort}; }
}
`;

export const unitText = `[Unit]
Description=Meeting service (doctor test)

[Service]
Type=simple
ExecStart=${process.execPath} ${meetctl} serve
Restart=on-failure
NoNewPrivileges=yes
PrivateTmp=yes

[Install]
WantedBy=multi-user.target
`;

export interface Setup {
  readonly root: string;
  readonly configDir: string;
  readonly dataDir: string;
  readonly envFile: string;
  readonly tenantsFile: string;
  readonly nginxFile: string;
  readonly unitFile: string;
  readonly enginePort: number;
  readonly compatPort: number;
  readonly privateKeyPem: string;
  readonly publicKeyFile: string;
  /** Rewrites the env file with these values over the healthy ones (null removes one). */
  env(over?: Record<string, string | null>): void;
  args(...more: string[]): string[];
}

/**
 * A healthy installation in a temp directory: licence, env file, tenants, nginx site, systemd unit.
 * `light`: nginx -t and systemd-analyze are not run (their checks skip), for the tests about
 * other checks: each costs two programs per doctor run on a small, shared machine.
 */
export async function healthy(t: Tap, options: { light?: boolean } = {}): Promise<Setup> {
  const root = mkdtempSync(join(tmpdir(), 'meet-doctor-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const configDir = join(root, 'etc');
  const dataDir = join(root, 'data');
  mkdirSync(configDir);
  mkdirSync(dataDir);
  const { privateKeyPem, publicKeyPem } = licenceKeyPair();
  const publicKeyFile = join(root, 'licence.pub');
  writeFileSync(publicKeyFile, publicKeyPem);
  const now = new Date();
  const key = await issueServerKey(privateKeyPem, { customer: 'Test School', modules: ['compat'], days: 365 }, now);
  recordServerKey(dataDir, key);
  const [enginePort, compatPort] = await freePorts(2);
  const envFile = join(configDir, 'meet.env');
  const base: Record<string, string> = {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_ADDR: `127.0.0.1:${enginePort}`,
    COMPAT_HTTP_ADDR: `127.0.0.1:${compatPort}`,
    SERVICE_LICENSE_PUBLIC_KEY: `@${publicKeyFile}`,
    COMPAT_API_SHARED_SECRET: apiSecret,
    COMPAT_JITSI_APP_ID: 'meet-app',
    COMPAT_JITSI_APP_SECRET: jitsiSecret,
    SERVICE_ICE_SERVERS: 'stun:turn.example.org:3478,turns:turn.example.org:5349',
    SERVICE_TURN_SECRET: turnSecret,
  };
  const env = (over: Record<string, string | null> = {}) => {
    const values = { ...base, ...over };
    const lines = Object.entries(values)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => `${k}=${v}`);
    writeFileSync(envFile, `# written by the doctor test\n${lines.join('\n')}\n`, { mode: 0o600 });
    chmodSync(envFile, 0o600);
  };
  env();
  const tenantsFile = join(configDir, 'tenants.toml');
  writeFileSync(
    tenantsFile,
    `[tenants.acme]\napi_secret = "${tenantApi}"\napp_id = "acme-app"\napp_secret = "${tenantApp}"\n`,
    { mode: 0o600 },
  );
  const nginxFile = join(root, 'meet.conf');
  writeFileSync(nginxFile, siteText(enginePort, compatPort));
  const unitFile = join(root, 'meet.service');
  writeFileSync(unitFile, unitText);
  return {
    root,
    configDir,
    dataDir,
    envFile,
    tenantsFile,
    nginxFile,
    unitFile,
    enginePort,
    compatPort,
    privateKeyPem,
    publicKeyFile,
    env,
    args: (...more) => [
      'doctor',
      '--config-dir',
      configDir,
      '--nginx-file',
      nginxFile,
      ...(options.light
        ? ['--nginx-bin', join(root, 'no-nginx'), '--unit-file', join(root, 'absent.service')]
        : ['--unit-file', unitFile]),
      ...more,
    ],
  };
}

export interface Report {
  readonly status: string;
  readonly checks: { id: string; title: string; status: string; detail: string; hint?: string }[];
}

export async function doctorJson(
  t: Tap,
  s: Setup,
  more: string[] = [],
  env: Record<string, string> = {},
): Promise<{ result: CliResult; report: Report; byId: Map<string, Report['checks'][number]> }> {
  const result = await runCli(s.args('--json', ...more), env);
  let report: Report = { status: 'unparsed', checks: [] };
  try {
    report = JSON.parse(result.stdout) as Report;
  } catch {
    t.fail(`--json output parses: ${result.stdout}\n${result.stderr}`);
  }
  return { result, report, byId: new Map(report.checks.map((c) => [c.id, c])) };
}

/** The text line of a check and the line after it (its hint, when it has one). */
export function lineOf(stdout: string, title: string): [string, string] {
  const lines = stdout.split('\n');
  const at = lines.findIndex((l) => l.slice(2).startsWith(`${title}:`));
  return [lines[at] ?? `(no line for ${title})`, lines[at + 1] ?? ''];
}

/** Runs doctor in text mode and asserts exit 1, a ✗ line for `title` matching `detail`, and a hint under it. */
export async function expectFailure(
  t: Tap,
  s: Setup,
  title: string,
  detail: RegExp,
  hint: RegExp,
  more: string[] = [],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const result = await runCli(s.args(...more), env);
  t.equal(result.code, 1, `exit 1 (${title})`);
  const [line, next] = lineOf(result.stdout, title);
  t.match(line, new RegExp(`^✗ ${title}: `), `a ✗ line for ${title}`);
  t.match(line, detail);
  t.match(next, /^ {4}hint: /, 'the hint on the next line');
  t.match(next, hint);
  t.match(result.stderr, /meetctl: \d+ checks? failed/);
  return result;
}
