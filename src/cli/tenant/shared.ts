import { Option, type Command } from 'commander';
import { inGrace, primaryTenantId, type PreviousSecret, type Tenant } from '../../compat/tenants/parse.js';
import {
  tenantIdProblem,
  TenantRefused,
  untilText,
  type PrimaryCredentials,
  type TenantKey,
} from '../../ops/tenants-file.js';
import { TenantsFileProblem } from '../../ops/tenants-update.js';
import { addConfigOptions } from '../config-options.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';

// What more than one `meetctl tenant` subcommand needs: the file options, error mapping, and how a tenant is shown.

export const masked = '***';

/** The tenant as list and show print it: which credentials it has, never a character of a secret. */
interface TenantView {
  readonly id: string;
  readonly source: 'env' | 'file';
  readonly api_secret: string | null;
  readonly app_id: string | null;
  readonly app_secret: string | null;
  /** Its own authenticated_guest, or `inherited` (COMPAT_AUTHENTICATED_GUEST applies); null without meeting-API joins. */
  readonly authenticated_guest: 'on' | 'off' | 'inherited' | null;
}

export function viewOf(tenant: Tenant, source: TenantView['source'], reveal: boolean): TenantView {
  const secret = (value: string | null) => (value === null ? null : reveal ? value : masked);
  return {
    id: tenant.id,
    source,
    api_secret: secret(tenant.apiSecret),
    app_id: tenant.appId,
    app_secret: secret(tenant.appSecret),
    authenticated_guest:
      tenant.apiSecret === null
        ? null
        : tenant.authenticatedGuest === undefined
          ? 'inherited'
          : tenant.authenticatedGuest
            ? 'on'
            : 'off',
  };
}

export function primaryTenant(primary: PrimaryCredentials): Tenant | null {
  if (primary.apiSecret === null && primary.appId === null && primary.appSecret === null) return null;
  return { id: primaryTenantId, apiSecret: primary.apiSecret, appId: primary.appId, appSecret: primary.appSecret };
}

/** ops' errors as meetctl's: each kind keeps its exit code and hint. */
export async function mapped<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TenantsFileProblem) throw new CliError(err.kind, err.message, err.hint);
    if (err instanceof TenantRefused) throw new CliError('refused', err.message, err.hint);
    throw err;
  }
}

export function checkedId(id: string): string {
  const problem = tenantIdProblem(id);
  if (problem !== null) throw new CliError('usage', problem);
  return id;
}

const fileHelp = `
The tenants file: --tenants-file, else SERVICE_TENANTS_FILE (environment, room-defaults.toml
or the env file), else <config dir>/tenants.toml. It is changed in place (comments and other
tenants kept), checked with the service's own parser, written atomically with mode 0600 under
<file>.lock (MEET_LOCK_WAIT_MS, default 10000, is how long a second invocation waits), and a
running service picks the change up within a second.
Secrets given with --api-secret or --app-secret are visible to other users of the machine in
the process list: prefer --api-secret-file / --app-secret-file (- reads standard input), or
let meetctl generate them.`;

export function withFileOptions(command: Command): Command {
  addConfigOptions(command, ['tenantsFile', 'configDir']);
  command.addOption(
    new Option(
      '--env-file <path>',
      'env file holding the primary tenant (COMPAT_API_SHARED_SECRET) and SERVICE_TENANTS_FILE (default <config dir>/meet.env)',
    ),
  );
  command.addHelpText('after', fileHelp);
  return command;
}

export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') +
    '\n'
  );
}

/** A rotated-out secret as show prints it: masked unless revealed, with its end and whether it has come. */
function previousView(previous: PreviousSecret | undefined, reveal: boolean, nowMs: number) {
  if (previous === undefined) return null;
  return {
    value: reveal ? previous.secret : masked,
    until: untilText(previous.until),
    active: inGrace(previous, nowMs),
  };
}

/** The secrets a rotation replaced that the tenant still lists, by their JSON key (absent ones left out). */
export function previousViews(tenant: Tenant, reveal: boolean, nowMs: number) {
  const views = {
    previous_api_secret: previousView(tenant.previousApiSecret, reveal, nowMs),
    previous_app_secret: previousView(tenant.previousAppSecret, reveal, nowMs),
  };
  return Object.fromEntries(Object.entries(views).filter(([, v]) => v !== null)) as Partial<
    Record<keyof typeof views, NonNullable<ReturnType<typeof previousView>>>
  >;
}

/** "api_secret valid until …" (or "ended …") per replaced secret, for the tables. */
export const graceText = (previous: ReturnType<typeof previousViews>) =>
  Object.entries(previous).map(
    ([key, v]) => `${key.replace('previous_', '')} ${v.active ? 'valid until' : 'ended'} ${v.until}`,
  );

export function printGenerated(io: CliIo, generated: readonly [TenantKey, string][]): void {
  for (const [key, value] of generated) io.out(`${key}=${value}\n`);
}
