import type { Command } from 'commander';
import { fileTenants } from '../../ops/tenants-file.js';
import { loadTenants } from '../../ops/tenants-update.js';
import type { CliIo } from '../io.js';
import { tenantContext, unnamedWarning } from './context.js';
import { graceText, mapped, masked, previousViews, primaryTenant, table, viewOf, withFileOptions } from './shared.js';

/** `meetctl tenant list`: every tenant and which credentials it has, never a secret. */
export function tenantList(tenant: Command, io: CliIo): void {
  const command = tenant
    .command('list')
    .description('list tenants and which credentials each has (secrets are never shown)')
    .option('--json', 'print JSON instead of a table')
    .action((options: Record<string, unknown>) =>
      mapped(() => {
        const context = tenantContext(options, io);
        const { snapshot } = loadTenants(context.file, context.primary);
        io.err(unnamedWarning(context));
        const primary = primaryTenant(context.primary);
        const now = Date.now();
        // A secret a rotation replaced is listed with the end of its grace, so the operator sees which platforms still owe a switch.
        const views = [
          ...(primary ? [{ tenant: primary, source: 'env' as const }] : []),
          ...fileTenants(snapshot).map((t) => ({ tenant: t, source: 'file' as const })),
        ].map(({ tenant, source }) => ({
          view: viewOf(tenant, source, false),
          previous: previousViews(tenant, false, now),
        }));
        if (options.json) {
          io.out(
            `${JSON.stringify(
              views.map(({ view, previous }) => ({ ...view, ...previous })),
              null,
              2,
            )}\n`,
          );
          return;
        }
        if (views.length === 0) {
          io.err(
            `No tenants: ${context.file} holds none and no primary secret is set. Add one with \`meetctl tenant add ID\`.\n`,
          );
          return;
        }
        const has = (value: string | null) => (value === null ? '-' : masked);
        const graces = views.map(({ previous }) => graceText(previous));
        // The column only when some tenant is in (or past) a rotation's grace: the usual table stays as narrow as before.
        const withGrace = graces.some((g) => g.length > 0);
        io.out(
          table([
            [
              'ID',
              'SOURCE',
              'API SECRET',
              'APP ID',
              'APP SECRET',
              'AUTH GUEST',
              ...(withGrace ? ['REPLACED SECRET'] : []),
            ],
            ...views.map(({ view: v }, i) => [
              v.id,
              v.source === 'env' ? 'env file' : 'tenants file',
              has(v.api_secret),
              v.app_id ?? '-',
              has(v.app_secret),
              v.authenticated_guest ?? '-',
              ...(withGrace ? [graces[i]!.join(', ') || '-'] : []),
            ]),
          ]),
        );
      }),
    );
  withFileOptions(command);
}
