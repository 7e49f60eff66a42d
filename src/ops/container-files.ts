import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopTimeoutSecs } from '../daemon/shutdown.js';
import { checkPath, checkPort, hostPort } from './runtime-checks.js';
import type { RuntimeFile, RuntimeSettings } from './runtime-files.js';
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
function serveCommand(settings: RuntimeSettings, graceSecs: number): string[] {
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
  ];
}

/** Slim images have no curl: Node's fetch asks /readyz, and anything but 2xx (or no answer in 4 s) is unhealthy. */
function healthcheck(port: number): string[] {
  const probe = `fetch('http://127.0.0.1:${port}/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`;
  return ['node', '-e', probe];
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
  const command = serveCommand(settings, graceSecs);
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
      healthcheck: json(['CMD', ...healthcheck(enginePort)]),
      timeout_stop_secs: timeout,
      subnet: json(composeSubnet),
      gateway: json(composeGateway),
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
