import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopTimeoutSecs } from '../platform/stop-budget.js';
import {
  checkPath,
  checkPort,
  checkUser,
  checkVisibleToUnit,
  hostPort,
  loopbackFor,
  relativeUnder,
  type RuntimeFile,
  type RuntimeSettings,
} from './runtime-checks.js';
import { renderTemplate } from './template.js';

const template = () => readFileSync(new URL('../../templates/meet.service', import.meta.url), 'utf8');

export const unitName = 'meet';

/**
 * The systemd unit. StateDirectory=/ConfigurationDirectory= only express directories under
 * /var/lib and /etc; elsewhere the line says so and the operator creates the directory.
 */
export function systemdUnit(settings: RuntimeSettings, graceSecs: number, outDir: string): RuntimeFile {
  checkUser(settings.user);
  checkVisibleToUnit('node', settings.node);
  checkVisibleToUnit('installDir', settings.installDir);
  checkVisibleToUnit('dataDir', settings.dataDir);
  checkVisibleToUnit('configDir', settings.configDir);
  checkPath('envFile', settings.envFile);
  checkPort('engineAddr', settings.engineAddr);
  checkPort('compatAddr', settings.compatAddr);
  const state = relativeUnder('/var/lib', settings.dataDir);
  const configuration = relativeUnder('/etc', settings.configDir);
  const content = renderTemplate(
    template(),
    {
      user: settings.user,
      node: settings.node,
      install_dir: settings.installDir,
      env_file: settings.envFile,
      data_dir: settings.dataDir,
      config_dir: settings.configDir,
      shutdown_grace_secs: String(graceSecs),
      timeout_stop_secs: String(stopTimeoutSecs(graceSecs)),
      state_directory: state
        ? `StateDirectory=${state}\nStateDirectoryMode=0700`
        : `# No StateDirectory=: ${settings.dataDir} is outside /var/lib (create it, owned by ${settings.user}, mode 0700).`,
      configuration_directory: configuration
        ? `ConfigurationDirectory=${configuration}`
        : `# No ConfigurationDirectory=: ${settings.configDir} is outside /etc (create it, owned by ${settings.user}, mode 0700).`,
    },
    'templates/meet.service',
  );
  return { path: join(outDir, `${unitName}.service`), content, mode: 0o644 };
}

export function nativeNextSteps(settings: RuntimeSettings, unit: RuntimeFile): string[] {
  const installed = `/etc/systemd/system/${unitName}.service`;
  const ready = `http://${hostPort(loopbackFor(settings.engineAddr.host), settings.engineAddr.port)}/readyz`;
  return [
    ...(unit.path === installed ? [] : [`install -m 0644 ${unit.path} ${installed}`]),
    ...(relativeUnder('/var/lib', settings.dataDir)
      ? []
      : [`install -d -o ${settings.user} -g ${settings.user} -m 0700 ${settings.dataDir}`]),
    `chown -R ${settings.user}:${settings.user} ${settings.configDir}`,
    'systemctl daemon-reload',
    `systemctl enable --now ${unitName}`,
    `systemctl status ${unitName}`,
    `journalctl -u ${unitName} -f`,
    `node -e "fetch('${ready}').then(async (r) => console.log(r.status, await r.text()))"`,
  ];
}
