import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { Config } from '../config/settings.js';
import { compatActive, startCompat } from '../compat/module.js';
import { buildEngineApp } from '../http/app.js';
import { licensedAtStart, watchLicence } from './licence-gate.js';
import { loggerOptions } from './logger.js';
import { openServices, type Services } from './services.js';

export const initialTokenFileName = 'initial-admin-token';

export interface RunningDaemon {
  readonly url: string;
  readonly log: Logger;
  stop(): Promise<void>;
}

function writeInitialToken(dataDir: string, token: string): string {
  const file = join(dataDir, initialTokenFileName);
  try {
    unlinkSync(file);
  } catch {
    // absent, as it should be on a first start
  }
  // 'wx' with mode: the file is born readable by the owner only, never briefly wider.
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

function displayUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Opens the store, starts the engine listener and returns a handle that stops it gracefully. */
export async function startDaemon(config: Config, log: Logger = pino(loggerOptions(config.logLevel, process.stdout.isTTY === true))): Promise<RunningDaemon> {
  const services: Services = openServices(config);
  const initial = services.accessTokens.issueInitialToken((issued) => writeInitialToken(config.dataDir, issued.token));
  if (initial) {
    const file = join(config.dataDir, initialTokenFileName);
    log.info({ file }, `first admin access token written to ${file}`);
  }
  const app = await buildEngineApp(services, { loggerInstance: log, web: config, trustedProxies: config.trustedProxies });
  app.addHook('onClose', async () => services.close());
  services.startSweeping((err) => log.error({ err }, 'sweep failed'));
  await app.listen({ host: config.httpAddr.host, port: config.httpAddr.port });
  // The compat module (meeting API, later the embed gateway) runs in this process on its own listener, only when
  // installed with a valid server key (checked at start; see licence-gate.ts); it stops first.
  const licensed = compatActive(config) && (await licensedAtStart('compat', config, log, new Date()));
  const compat = licensed
    ? await startCompat(config, services, log).catch(async (err: unknown) => {
        await app.close();
        throw err;
      })
    : null;
  const stopWatching = compat ? watchLicence('compat', config, log, () => new Date()) : () => undefined;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.httpAddr.port;
  const url = displayUrl(config.httpAddr.host, port);
  log.info({ url }, `engine listening on ${url}`);
  const stop = async () => {
    stopWatching();
    await compat?.stop();
    await app.close();
  };
  return { url, log, stop };
}

/** Stops accepting, lets in-flight requests finish, closes the database, then exits 0. */
export function stopOnSignals(daemon: RunningDaemon): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    daemon.log.info({ signal }, 'stopping');
    daemon.stop().then(
      () => {
        daemon.log.info('stopped');
        daemon.log.flush?.();
        process.exit(0);
      },
      (err: unknown) => {
        daemon.log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
