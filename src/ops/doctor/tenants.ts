import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config/settings.js';
import { minSecretBytes, readRegistryFile, RegistryError, type TenantSnapshot } from '../../compat/tenants/parse.js';
import { check, configMissing, fail, ok, reason, skip, type DoctorContext } from './check.js';

/** The registry file: SERVICE_TENANTS_FILE, or tenants.toml in the configuration directory. */
export function tenantsFileOf(config: Config): string {
  return config.tenantsFile ?? join(config.configDir, 'tenants.toml');
}

/** The registry as the daemon would load it, or why it cannot; absent when the file does not exist. */
export function loadTenants(
  config: Config,
): { status: 'absent' } | { status: 'read'; snapshot: TenantSnapshot } | { status: 'broken'; message: string } {
  const file = tenantsFileOf(config);
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) return { status: 'absent' };
    if (stat.isDirectory()) return { status: 'broken', message: `${file} is a directory, not a file` };
    return { status: 'read', snapshot: readRegistryFile(file, config.compatApiSharedSecret) };
  } catch (err) {
    return {
      status: 'broken',
      message: err instanceof RegistryError ? `${file}: ${err.message}` : `cannot read ${file}: ${reason(err)}`,
    };
  }
}

export const tenantsCheck = check('tenants', 'Tenants file', (ctx: DoctorContext) => {
  if (ctx.config === null) return configMissing;
  const file = tenantsFileOf(ctx.config);
  let mode: number;
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) return skip(`${file} does not exist (the primary tenant alone)`);
    mode = stat.mode & 0o777;
  } catch (err) {
    return fail(`cannot read ${file}: ${reason(err)}`, "run meetctl doctor as root or as the service's user");
  }
  const loaded = loadTenants(ctx.config);
  if (loaded.status === 'broken') {
    return fail(
      loaded.message,
      'fix the file (meetctl tenant list shows what is in it); the running daemon keeps the last good registry until then',
    );
  }
  if ((mode & 0o077) !== 0) {
    return fail(
      `${file} holds secrets but is mode ${mode.toString(8).padStart(4, '0')}: other users can read it`,
      `chmod 600 ${file}`,
    );
  }
  const count = loaded.status === 'read' ? loaded.snapshot.tenants.filter((t) => t.id !== 'primary').length : 0;
  return ok(
    `${file}: ${count === 0 ? 'no tenant' : `${count} tenant${count === 1 ? '' : 's'}`}, mode ${mode.toString(8).padStart(4, '0')}`,
  );
});

/** Every secret the service checks signatures with, by the name an operator finds it under; never its value. */
export function secretsOf(config: Config, snapshot: TenantSnapshot | null): { name: string; bytes: number }[] {
  const found: { name: string; bytes: number }[] = [];
  const add = (name: string, value: string | null) => {
    if (value !== null) found.push({ name, bytes: Buffer.byteLength(value, 'utf8') });
  };
  add('COMPAT_API_SHARED_SECRET', config.compatApiSharedSecret);
  add('COMPAT_JITSI_APP_SECRET', config.jitsiAppSecret);
  for (const tenant of snapshot?.tenants ?? []) {
    if (tenant.id === 'primary') continue;
    add(`tenant ${tenant.id} api_secret`, tenant.apiSecret);
    add(`tenant ${tenant.id} app_secret`, tenant.appSecret);
  }
  return found;
}

export const secretsCheck = check('secrets', 'Secrets', (ctx: DoctorContext) => {
  if (ctx.config === null) return configMissing;
  const loaded = loadTenants(ctx.config);
  const secrets = secretsOf(ctx.config, loaded.status === 'read' ? loaded.snapshot : null);
  const unread = loaded.status === 'broken' ? ' (the tenants file could not be read: its secrets are not checked)' : '';
  if (secrets.length === 0) return skip(`no secret is set${unread}`);
  const short = secrets.filter((s) => s.bytes < minSecretBytes);
  if (short.length > 0) {
    const names = short.map((s) => `${s.name} (${s.bytes} bytes)`).join(', ');
    const rotate = short.some((s) => s.name.startsWith('tenant ')) ? '; for a tenant: meetctl tenant rotate ID' : '';
    return fail(
      `shorter than ${minSecretBytes} bytes: ${names}`,
      `replace with at least ${minSecretBytes} random bytes, e.g. openssl rand -base64 32 (then update the platforms that use it)${rotate}`,
    );
  }
  return ok(
    `${secrets.length} secret${secrets.length === 1 ? '' : 's'}, each at least ${minSecretBytes} bytes${unread}`,
  );
});
