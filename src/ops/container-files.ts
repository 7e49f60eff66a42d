import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopTimeoutSecs } from '../platform/stop-budget.js';
import {
  checkPath,
  checkPort,
  hostPort,
  rtpPortsOf,
  type RuntimeFile,
  type RuntimeSettings,
} from './runtime-checks.js';
import { renderTemplate } from './template.js';

const template = (name: string) => readFileSync(new URL(`../../templates/${name}`, import.meta.url), 'utf8');

/** Current Node LTS, slim; the Dockerfile's ARG lets an operator move to the next one. */
export const nodeImage = 'node:24-bookworm-slim';
/** The image's user, fixed so host directories can be chowned to it before the first start. */
export const containerUid = 10001;
/** Where the image keeps its state and configuration (the volumes). */
export const containerDataDir = '/var/lib/meet';
export const containerConfigDir = '/etc/meet';
/** The compose network: its gateway is where the host's nginx comes from, the one trusted proxy. */
export const composeSubnet = '172.30.57.0/24';
export const composeGateway = '172.30.57.1';

/** The serve command inside the container: paths, addresses and grace as flags, so the env file cannot move them. */
function serveCommand(settings: RuntimeSettings, graceSecs: number, rtpPorts: string): string[] {
  return [
    'node',
    'bin/meetctl.js',
    'serve',
    '--config',
    `${containerConfigDir}/room-defaults.toml`,
    '--data-dir',
    containerDataDir,
    '--config-dir',
    containerConfigDir,
    '--http-addr',
    `0.0.0.0:${settings.engineAddr.port}`,
    '--compat-http-addr',
    `0.0.0.0:${settings.compatAddr.port}`,
    '--trusted-proxies',
    composeGateway,
    '--shutdown-grace-secs',
    String(graceSecs),
    '--rtp-ports',
    rtpPorts,
  ];
}

/** Slim images have no curl: Node's fetch asks /readyz, and anything but 2xx (or no answer in 4 s) is unhealthy. */
function healthcheck(port: number): string[] {
  const probe = `fetch('http://127.0.0.1:${port}/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`;
  return ['node', '-e', probe];
}

/** coturn's own image, for the optional `turn` service (Debian's `coturn` package is the native choice). */
export const coturnImage = 'coturn/coturn:4.6';

/**
 * Where a relay must never go: TURN relays to any address a client names, so without these a
 * guest could reach the host's loopback services and the private networks behind it.
 */
export const turnDeniedPeers = [
  '0.0.0.0-0.255.255.255',
  '10.0.0.0-10.255.255.255',
  '100.64.0.0-100.127.255.255',
  '127.0.0.0-127.255.255.255',
  '169.254.0.0-169.254.255.255',
  '172.16.0.0-172.31.255.255',
  '192.0.0.0-192.0.0.255',
  '192.168.0.0-192.168.255.255',
  '198.18.0.0-198.19.255.255',
  '::1',
  '::ffff:0.0.0.0-::ffff:255.255.255.255',
  'fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  'fe80::-febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
];

/**
 * coturn with the REST credentials the daemon hands out (use-auth-secret: HMAC-SHA1 of the
 * expiry-stamped user name with SERVICE_TURN_SECRET). `$$` is compose's escape: the container's
 * shell reads the secret from the env file, so it is never written into compose.yaml.
 */
function turnCommand(): string {
  const flags = [
    '--no-cli',
    '--fingerprint',
    '--use-auth-secret',
    '--static-auth-secret="$$SERVICE_TURN_SECRET"',
    '--realm=meet',
    '--listening-port=3478',
    '--min-port=49160',
    '--max-port=49359',
    '--no-multicast-peers',
    ...turnDeniedPeers.map((range) => `--denied-peer-ip=${range}`),
  ];
  return `test -n "$$SERVICE_TURN_SECRET" || { echo "SERVICE_TURN_SECRET is not set in the env file" >&2; exit 1; }; exec turnserver ${flags.join(' ')}`;
}

/** JSON is both a Dockerfile exec form and a YAML flow value, with nothing left to quote by hand. */
const json = (value: unknown) => JSON.stringify(value);

export function containerFiles(settings: RuntimeSettings, graceSecs: number, outDir: string): RuntimeFile[] {
  checkPath('installDir', settings.installDir);
  checkPath('dataDir', settings.dataDir);
  checkPath('configDir', settings.configDir);
  checkPath('envFile', settings.envFile);
  checkPath('outDir', outDir);
  const enginePort = checkPort('engineAddr', settings.engineAddr);
  const compatPort = checkPort('compatAddr', settings.compatAddr);
  const dockerfile = join(outDir, 'Dockerfile');
  const composeFile = join(outDir, 'compose.yaml');
  const range = rtpPortsOf(settings);
  const rtpPorts = `${range.min}-${range.max}`;
  const command = serveCommand(settings, graceSecs, rtpPorts);
  const timeout = String(stopTimeoutSecs(graceSecs));

  const dockerfileText = renderTemplate(
    template('Dockerfile'),
    {
      install_dir: settings.installDir,
      compose_file: composeFile,
      node_image: nodeImage,
      uid: String(containerUid),
      engine_port: String(enginePort),
      compat_port: String(compatPort),
      rtp_ports: rtpPorts,
      healthcheck_exec: json(healthcheck(enginePort)),
      timeout_stop_secs: timeout,
      command_exec: json(command),
    },
    'templates/Dockerfile',
  );
  const composeText = renderTemplate(
    template('compose.yaml'),
    {
      compose_file: composeFile,
      uid: String(containerUid),
      install_dir: json(settings.installDir),
      dockerfile: json(dockerfile),
      command: json(command),
      env_file: json(settings.envFile),
      data_dir: json(settings.dataDir),
      config_dir: json(settings.configDir),
      engine_port_mapping: json(`${hostPort(settings.engineAddr.host, enginePort)}:${enginePort}`),
      compat_port_mapping: json(`${hostPort(settings.compatAddr.host, compatPort)}:${compatPort}`),
      // Browsers send media straight to Janus: on every host address, as UDP.
      rtp_port_mapping: json(`${rtpPorts}:${rtpPorts}/udp`),
      healthcheck: json(['CMD', ...healthcheck(enginePort)]),
      timeout_stop_secs: timeout,
      subnet: json(composeSubnet),
      gateway: json(composeGateway),
      coturn_image: json(coturnImage),
      turn_command: json([turnCommand()]),
    },
    'templates/compose.yaml',
  );
  return [
    { path: dockerfile, content: dockerfileText, mode: 0o644 },
    // BuildKit reads <Dockerfile>.dockerignore beside the Dockerfile: the host's node_modules
    // (built for another libc) and the data directory (database, signing key) stay out of the image.
    { path: join(outDir, 'Dockerfile.dockerignore'), content: template('Dockerfile.dockerignore'), mode: 0o644 },
    { path: composeFile, content: composeText, mode: 0o644 },
  ];
}

export function containerNextSteps(settings: RuntimeSettings, files: readonly RuntimeFile[]): string[] {
  const compose = files.find((file) => file.path.endsWith('/compose.yaml'))?.path ?? 'compose.yaml';
  return [
    `install -d -m 0700 ${settings.dataDir}`,
    `chown -R ${containerUid}:${containerUid} ${settings.dataDir} ${settings.configDir}`,
    `docker compose -f ${compose} build`,
    `docker compose -f ${compose} up -d`,
    `docker compose -f ${compose} ps`,
    `docker compose -f ${compose} logs -f meet`,
  ];
}
