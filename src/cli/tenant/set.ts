import type { Command } from 'commander';
import type { Tenant } from '../../compat/tenants/parse.js';
import { fileTenants, setAuthenticatedGuestText } from '../../ops/tenants-file.js';
import { editTenants } from '../../ops/tenants-update.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { tenantContext, unnamedWarning } from './context.js';
import { checkedId, mapped, withFileOptions } from './shared.js';

/** `meetctl tenant set ID`: a tenant's settings (not its secrets: `tenant rotate` makes those). */
export function tenantSet(tenant: Command, io: CliIo): void {
  const command = tenant
    .command('set')
    .description("change a tenant's settings in the tenants file; the running service picks them up")
    .argument('<id>', 'tenant id')
    .option(
      '--authenticated-guest',
      "its meeting-API viewers of ASK_MODERATOR meetings wait for a moderator, guest=true or not (upstream's authenticatedGuest)",
    )
    .option('--no-authenticated-guest', 'its viewers enter directly whatever COMPAT_AUTHENTICATED_GUEST says')
    .option('--inherit-authenticated-guest', 'remove its own value: COMPAT_AUTHENTICATED_GUEST applies')
    .action((id: string, options: Record<string, unknown>) =>
      mapped(async () => {
        checkedId(id);
        const given = typeof options.authenticatedGuest === 'boolean' ? options.authenticatedGuest : null;
        const inherit = options.inheritAuthenticatedGuest === true;
        if (given !== null && inherit)
          throw new CliError('usage', 'give --[no-]authenticated-guest or --inherit-authenticated-guest, not both');
        if (given === null && !inherit)
          throw new CliError(
            'usage',
            'nothing to set: give --authenticated-guest, --no-authenticated-guest or --inherit-authenticated-guest',
          );
        const context = tenantContext(options, io);
        await editTenants(context, (current) => {
          const old = current.snapshot.byId.get(id);
          if (old === undefined)
            throw new CliError('refused', `no tenant ${id} in ${context.file}`, 'see `meetctl tenant list`');
          if (old.apiSecret === null && given !== null)
            throw new CliError(
              'refused',
              `tenant ${id} has no meeting-API secret: authenticated_guest applies to its joins`,
            );
          const { authenticatedGuest: _dropped, ...rest } = old;
          const next: Tenant = given === null ? rest : { ...rest, authenticatedGuest: given };
          return {
            text: setAuthenticatedGuestText(current.text, id, given, context.file),
            expected: fileTenants(current.snapshot).map((t) => (t.id === id ? next : t)),
          };
        });
        io.out(`set ${id}\n`);
        const now = given === null ? 'follows COMPAT_AUTHENTICATED_GUEST' : `authenticated_guest = ${given}`;
        io.err(
          `Tenant ${id}: ${now} in ${context.file}; a running service picks it up within a second.\n${unnamedWarning(context)}`,
        );
      }),
    );
  withFileOptions(command);
}
