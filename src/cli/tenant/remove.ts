import type { Command } from 'commander';
import { primaryTenantId } from '../../compat/tenants/parse.js';
import { fileTenants, removeTenantText } from '../../ops/tenants-file.js';
import { editTenants } from '../../ops/tenants-update.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { tenantContext, unnamedWarning } from './context.js';
import { checkedId, mapped, withFileOptions } from './shared.js';

/** `meetctl tenant remove ID`: the tenant's entry leaves the file, and its secrets stop working. */
export function tenantRemove(tenant: Command, io: CliIo): void {
  const command = tenant
    .command('remove')
    .description('remove a tenant: its secrets stop working once the running service reloads (within a second)')
    .argument('<id>', 'tenant id')
    .action((id: string, options: Record<string, unknown>) =>
      mapped(async () => {
        if (id === primaryTenantId)
          throw new CliError(
            'refused',
            'the primary tenant is COMPAT_API_SHARED_SECRET in the env file, not an entry of the tenants file',
            'edit the env file (or `meetctl uninstall compat`) to change it',
          );
        checkedId(id);
        const context = tenantContext(options, io);
        await editTenants(context, (current) => {
          if (!current.snapshot.byId.has(id))
            throw new CliError('refused', `no tenant ${id} in ${context.file}`, 'see `meetctl tenant list`');
          return {
            text: removeTenantText(current.text, id, context.file),
            expected: fileTenants(current.snapshot).filter((t) => t.id !== id),
          };
        });
        io.out(`removed ${id}\n`);
        io.err(
          `Tenant ${id} removed from ${context.file}; a running service stops accepting its secrets within a second.\n${unnamedWarning(context)}`,
        );
      }),
    );
  withFileOptions(command);
}
