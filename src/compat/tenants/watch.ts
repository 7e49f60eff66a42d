import { basename, dirname, resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { readRegistryFile, type RegistryError } from './parse.js';
import { TenantRegistry, type RegistryClock } from './registry.js';

export interface RegistryLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface TenantWatch {
  readonly registry: TenantRegistry;
  /** Re-reads the file now (also what SIGHUP does). */
  reload(): void;
  close(): Promise<void>;
}

/** How long the file must be quiet before it is re-read: an editor's save or a rename is one change. */
export const reloadDebounceMs = 150;

/**
 * Loads the registry and keeps it current: chokidar watches the file's directory (an atomic
 * replacement by rename changes the inode, which a watch on the file itself can miss),
 * changes are debounced, and the new snapshot replaces the old one only when it is valid. A
 * bad file keeps the last good registry and logs why, with line and column for TOML errors.
 * The first read throws RegistryError: a daemon does not start on a broken registry.
 */
export async function watchTenants(
  fileArg: string,
  primarySecret: string | null,
  log: RegistryLog,
  clock: RegistryClock,
  primaryAppId: string | null = null,
): Promise<TenantWatch> {
  const file = resolve(fileArg);
  const registry = new TenantRegistry(readRegistryFile(file, primarySecret, primaryAppId), clock);
  log.info({ file, tenants: registry.current().tenants.map((t) => t.id) }, 'tenant registry loaded');

  const reload = () => {
    try {
      const next = readRegistryFile(file, primarySecret, primaryAppId);
      registry.replace(next);
      log.info({ file, tenants: next.tenants.map((t) => t.id) }, 'tenant registry reloaded');
    } catch (err) {
      const e = err as RegistryError;
      log.error(
        { file, line: e.line ?? undefined, column: e.column ?? undefined, reason: e.message },
        `tenant registry not reloaded, the last good one stays: ${e.message}`,
      );
    }
  };

  let timer: NodeJS.Timeout | null = null;
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      reload();
    }, reloadDebounceMs);
  };

  const dir = dirname(file);
  const name = basename(file);
  const watcher: FSWatcher = watch(dir, {
    ignoreInitial: true,
    depth: 0,
    ignored: (path: string) => resolve(path) !== dir && basename(path) !== name,
  });
  watcher.on('add', schedule).on('change', schedule).on('unlink', schedule);
  watcher.on('error', (err) => log.warn({ err }, 'tenant registry watcher error'));
  await new Promise<void>((ready) => watcher.once('ready', () => ready()));

  const onHangup = () => reload();
  process.on('SIGHUP', onHangup);

  return {
    registry,
    reload,
    async close() {
      process.off('SIGHUP', onHangup);
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}
