import type { Command } from 'commander';
import { ConfigError } from '../config/config-error.js';
import type { Config } from '../config/settings.js';
import type { DoctorContext } from '../ops/doctor/check.js';
import { doctorChecks } from '../ops/doctor/index.js';
import { defaultNginxFile } from '../ops/doctor/nginx.js';
import { failed, runChecks } from '../ops/doctor/runner.js';
import { defaultUnitFile } from '../ops/doctor/systemd.js';
import { addConfigOptions } from './config-options.js';
import { renderJson, renderText } from './doctor-output.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { configOf, serviceSources } from './service-config.js';

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * Gathers what the checks look at, the way the daemon under systemd would see it: the env
 * file beneath the caller's environment, and room-defaults.toml from the configuration
 * directory when no other defaults file is named.
 */
export function doctorContext(options: Record<string, unknown>, io: CliIo): DoctorContext {
  // A missing or unreadable env file is the env-file check's finding, not a refusal to check.
  const sources = serviceSources(options, io, { reportOnly: true });
  const { env, configFile, configDir, envFile } = sources;
  let config: Config | null = null;
  let configError: string | null = null;
  try {
    config = configOf(sources, options, io);
  } catch (err) {
    // Any refusal to load is this check's finding, never a crash of doctor.
    configError = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  }
  return {
    env,
    config,
    configError,
    configFile,
    configDir,
    envFile,
    nginxFile: str(options.nginxFile) ?? defaultNginxFile,
    unitFile: str(options.unitFile) ?? defaultUnitFile,
    serviceUser: str(options.serviceUser),
    nginxBin: str(options.nginxBin),
    nodeVersion: process.versions.node,
    now: new Date(),
  };
}

export function doctorCommand(program: Command, io: CliIo): void {
  const command = program
    .command('doctor')
    .description(
      'check the machine and the configuration: one line per check, a hint for each problem; exit 1 when a check fails',
    )
    .option('--json', 'print the checks as JSON ({status, counts, checks: [{id, title, status, detail, hint?}]})')
    .option('--env-file <path>', 'environment file the service reads (default <config dir>/meet.env)')
    .option('--nginx-file <path>', `nginx site to check (default ${defaultNginxFile})`)
    .option('--nginx-bin <path>', 'nginx binary for nginx -t [MEET_NGINX_BIN] (default: nginx on PATH or in /usr/sbin)')
    .option('--unit-file <path>', `systemd unit to verify (default ${defaultUnitFile})`)
    .option('--service-user <name>', "user (or uid) that should own the service's files (default: the unit's User=)")
    .action(async (options: Record<string, unknown>) => {
      let ctx = doctorContext(options, io);
      if (ctx.config?.databaseUrl.kind === 'postgres') {
        const { postgresSchemas } = await import('../daemon/migrate-stores.js');
        ctx = { ...ctx, databaseSchemas: postgresSchemas() };
        const config = ctx.config;
        if (config !== null && config.natsUrl !== null) {
          const { registryView } = await import('../daemon/cluster-status.js');
          const now = ctx.now;
          ctx = { ...ctx, clusterNodes: () => registryView(config, now) };
        }
      }
      const results = await runChecks(doctorChecks, ctx);
      io.out(options.json ? renderJson(results) : renderText(io, results));
      const failures = failed(results);
      if (failures.length > 0) {
        throw new CliError(
          'refused',
          `${failures.length} check${failures.length === 1 ? '' : 's'} failed: ${failures.map((f) => f.id).join(', ')}`,
          'follow the hint under each failed check, then run meetctl doctor again',
        );
      }
    });
  addConfigOptions(command);
}
