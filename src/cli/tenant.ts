import type { Command } from 'commander';
import type { CliIo } from './io.js';
import { tenantAdd } from './tenant/add.js';
import { tenantList } from './tenant/list.js';
import { tenantRemove } from './tenant/remove.js';
import { tenantRotate } from './tenant/rotate.js';
import { tenantSet } from './tenant/set.js';
import { tenantShow } from './tenant/show.js';

/** `meetctl tenant`: one file per subcommand under tenant/, what they share in tenant/shared.ts and tenant/context.ts. */
export function tenantCommands(program: Command, io: CliIo): void {
  const tenant = program
    .command('tenant')
    .description(
      'manage the tenants of the compat module (their own meeting-API secret or embed app); the running service picks changes up',
    );
  tenantAdd(tenant, io);
  tenantList(tenant, io);
  tenantShow(tenant, io);
  tenantRemove(tenant, io);
  tenantRotate(tenant, io);
  tenantSet(tenant, io);
}
