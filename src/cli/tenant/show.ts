import type { Command } from 'commander';
import { primaryTenantId } from '../../compat/tenants/parse.js';
import { fileTenants } from '../../ops/tenants-file.js';
import { loadTenants } from '../../ops/tenants-update.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { tenantContext } from './context.js';
import { mapped, previousViews, primaryTenant, table, viewOf, withFileOptions } from './shared.js';

/** `meetctl tenant show ID`: one tenant, its secrets masked unless --reveal. */
export function tenantShow(tenant: Command, io: CliIo): void {
  const command = tenant
    .command('show')
    .description('show one tenant, its secrets masked unless --reveal')
    .argument('<id>', "tenant id (primary: the env file's COMPAT_* credentials)")
    .option('--reveal', 'print the secrets themselves')
    .option('--json', 'print JSON')
    .action((id: string, options: Record<string, unknown>) =>
      mapped(() => {
        const context = tenantContext(options, io);
        const { snapshot } = loadTenants(context.file, context.primary);
        const primary = primaryTenant(context.primary);
        const found = id === primaryTenantId ? primary : (fileTenants(snapshot).find((t) => t.id === id) ?? null);
        if (found === null)
          throw new CliError(
            'refused',
            `no tenant ${JSON.stringify(id)} in ${context.file}`,
            'see `meetctl tenant list`',
          );
        const view = viewOf(found, id === primaryTenantId ? 'env' : 'file', options.reveal === true);
        const previous = previousViews(found, options.reveal === true, Date.now());
        if (options.json) {
          io.out(`${JSON.stringify({ ...view, ...previous }, null, 2)}\n`);
          return;
        }
        const from = view.source === 'env' ? context.envFile : context.file;
        const graceRows = Object.entries(previous).map(([key, v]) => [
          key,
          `${v.value} ${v.active ? 'valid until' : 'ended'} ${v.until}`,
        ]);
        io.out(
          table([
            ['id', view.id],
            ['file', from],
            ['api_secret', view.api_secret ?? '-'],
            ['app_id', view.app_id ?? '-'],
            ['app_secret', view.app_secret ?? '-'],
            ['authenticated_guest', view.authenticated_guest ?? '-'],
            ...graceRows,
          ]),
        );
      }),
    );
  withFileOptions(command);
}
