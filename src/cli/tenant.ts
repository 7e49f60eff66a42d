import { Option, type Command } from 'commander';
import { inGrace, pathClash, primaryTenantId, type PreviousSecret, type Tenant, type TenantSnapshot } from '../compat/tenants/parse.js';
import {
  appendTenantText,
  fileTenants,
  holderOf,
  removeTenantText,
  setPreviousText,
  setTenantValueText,
  tenantIdProblem,
  TenantRefused,
  untilText,
  type PrimaryCredentials,
  type TenantKey,
} from '../ops/tenants-file.js';
import { editTenants, loadTenants, TenantsFileProblem } from '../ops/tenants-update.js';
import { addConfigOptions } from './config-options.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import {
  checkedValue,
  defaultGraceMs,
  generatedAppId,
  generatedSecret,
  graceMs,
  idWarning,
  longEnough,
  secretFromFile,
  tenantContext,
  unnamedWarning,
} from './tenant-context.js';

const masked = '***';

/** The tenant as list and show print it: which credentials it has, never a character of a secret. */
interface TenantView {
  readonly id: string;
  readonly source: 'env' | 'file';
  readonly api_secret: string | null;
  readonly app_id: string | null;
  readonly app_secret: string | null;
}

function viewOf(tenant: Tenant, source: TenantView['source'], reveal: boolean): TenantView {
  const secret = (value: string | null) => (value === null ? null : reveal ? value : masked);
  return { id: tenant.id, source, api_secret: secret(tenant.apiSecret), app_id: tenant.appId, app_secret: secret(tenant.appSecret) };
}

function primaryTenant(primary: PrimaryCredentials): Tenant | null {
  if (primary.apiSecret === null && primary.appId === null && primary.appSecret === null) return null;
  return { id: primaryTenantId, apiSecret: primary.apiSecret, appId: primary.appId, appSecret: primary.appSecret };
}

/** ops' errors as meetctl's: each kind keeps its exit code and hint. */
async function mapped<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TenantsFileProblem) throw new CliError(err.kind, err.message, err.hint);
    if (err instanceof TenantRefused) throw new CliError('refused', err.message, err.hint);
    throw err;
  }
}

function checkedId(id: string): string {
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

function withFileOptions(command: Command): Command {
  addConfigOptions(command, ['tenantsFile', 'configDir']);
  command.addOption(
    new Option('--env-file <path>', 'env file holding the primary tenant (COMPAT_API_SHARED_SECRET) and SERVICE_TENANTS_FILE (default <config dir>/meet.env)'),
  );
  command.addHelpText('after', fileHelp);
  return command;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

const picked = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A credential meetctl makes: a marker no given value can equal (`--app-id generate` is an id). */
const generate = Symbol('generate');
type Wanted = string | typeof generate | null;

/** The credentials `tenant add` writes, from flags, files or the generator. */
function credentialsOf(options: Record<string, unknown>): { api: Wanted; appId: Wanted; appSecret: Wanted } {
  const apiGiven = [picked(options.apiSecret) !== null, picked(options.apiSecretFile) !== null, options.generate === true].filter(Boolean).length;
  if (apiGiven > 1) throw new CliError('usage', 'give only one of --api-secret, --api-secret-file and --generate');
  const appSecretGiven = [picked(options.appSecret) !== null, picked(options.appSecretFile) !== null].filter(Boolean).length;
  if (appSecretGiven > 1) throw new CliError('usage', 'give only one of --app-secret and --app-secret-file');
  if (options.apiSecretFile === '-' && options.appSecretFile === '-')
    throw new CliError('usage', 'only one of --api-secret-file and --app-secret-file can be - (standard input)');
  const generateApp = options.generateApp === true;
  if (generateApp && appSecretGiven > 0)
    throw new CliError('usage', '--generate-app makes the app secret: give --app-secret/--app-secret-file or --generate-app, not both');
  const appIdGiven = picked(options.appId);
  if (!generateApp && (appIdGiven === null) !== (appSecretGiven === 0)) {
    throw new CliError(
      'usage',
      appIdGiven === null
        ? '--app-secret needs --app-id (the pair names the embedding application)'
        : '--app-id needs --app-secret or --app-secret-file (or --generate-app)',
    );
  }
  let api: Wanted = null;
  if (options.generate === true) api = generate;
  else if (picked(options.apiSecret) !== null) api = longEnough(checkedValue(String(options.apiSecret), '--api-secret'), '--api-secret');
  else if (picked(options.apiSecretFile) !== null)
    api = longEnough(checkedValue(secretFromFile(String(options.apiSecretFile), '--api-secret-file'), '--api-secret-file'), '--api-secret-file');
  const appId: Wanted = appIdGiven === null ? (generateApp ? generate : null) : checkedValue(appIdGiven, '--app-id');
  let appSecret: Wanted = generateApp ? generate : null;
  if (picked(options.appSecret) !== null) appSecret = longEnough(checkedValue(String(options.appSecret), '--app-secret'), '--app-secret');
  else if (picked(options.appSecretFile) !== null)
    appSecret = longEnough(checkedValue(secretFromFile(String(options.appSecretFile), '--app-secret-file'), '--app-secret-file'), '--app-secret-file');
  // Nothing asked for: a meeting-API secret is what almost every tenant needs.
  if (api === null && appId === null) api = generate;
  if (appId === generate && appSecret === null) appSecret = generate;
  return { api, appId, appSecret };
}

/** A value another tenant (the primary one included) already uses, as any kind of credential, is refused. */
function refuseHeld(value: string, what: string, snapshot: TenantSnapshot, primary: PrimaryCredentials): void {
  const holder = holderOf(value, snapshot, primary);
  if (holder !== null)
    throw new CliError('refused', `${what} is already used by ${holder}; every tenant needs its own`, 'give another value, or let meetctl generate one');
}

type Kind = 'api' | 'app';
const previousKey = { api: 'previousApiSecret', app: 'previousAppSecret' } as const;

/** The tenant with its previous secret of `kind` set, or gone (null). */
function withPrevious(tenant: Tenant, kind: Kind, previous: PreviousSecret | null): Tenant {
  const { [previousKey[kind]]: _dropped, ...rest } = tenant;
  return previous === null ? rest : { ...rest, [previousKey[kind]]: previous };
}

/** A rotated-out secret as show prints it: masked unless revealed, with its end and whether it has come. */
function previousView(previous: PreviousSecret | undefined, reveal: boolean, nowMs: number) {
  if (previous === undefined) return null;
  return { value: reveal ? previous.secret : masked, until: untilText(previous.until), active: inGrace(previous, nowMs) };
}

/** The secrets a rotation replaced that the tenant still lists, by their JSON key (absent ones left out). */
function previousViews(tenant: Tenant, reveal: boolean, nowMs: number) {
  const views = {
    previous_api_secret: previousView(tenant.previousApiSecret, reveal, nowMs),
    previous_app_secret: previousView(tenant.previousAppSecret, reveal, nowMs),
  };
  return Object.fromEntries(Object.entries(views).filter(([, v]) => v !== null)) as Partial<
    Record<keyof typeof views, NonNullable<ReturnType<typeof previousView>>>
  >;
}

/** "api_secret valid until …" (or "ended …") per replaced secret, for the tables. */
const graceText = (previous: ReturnType<typeof previousViews>) =>
  Object.entries(previous).map(([key, v]) => `${key.replace('previous_', '')} ${v.active ? 'valid until' : 'ended'} ${v.until}`);

function printGenerated(io: CliIo, generated: readonly [TenantKey, string][]): void {
  for (const [key, value] of generated) io.out(`${key}=${value}\n`);
}

export function tenantCommands(program: Command, io: CliIo): void {
  const tenant = program
    .command('tenant')
    .description('manage the tenants of the compat module (their own meeting-API secret or embed app); the running service picks changes up');

  const add = tenant
    .command('add')
    .description('add a tenant; generated secrets are printed once on standard output as key=value lines')
    .argument('<id>', 'tenant id: 1-64 of A-Z a-z 0-9 . _ -')
    .option('--api-secret <secret>', 'its meeting-API (checksum) secret; visible to other users in the process list, prefer --api-secret-file')
    .option('--api-secret-file <path>', 'read the meeting-API secret from a file (- for standard input)')
    .option('--generate', 'generate the meeting-API secret (32 random bytes, base64url); the default when no credential is given')
    .option('--app-id <id>', "its embed gateway application id (the tokens' iss)")
    .option('--app-secret <secret>', 'its embed gateway HS256 secret; visible in the process list, prefer --app-secret-file')
    .option('--app-secret-file <path>', 'read the app secret from a file (- for standard input)')
    .option('--generate-app', 'generate the app secret, and the app id unless --app-id gives it')
    .action((id: string, options: Record<string, unknown>) =>
      mapped(async () => {
        checkedId(id);
        const wanted = credentialsOf(options);
        const context = tenantContext(options, io);
        const generated: [TenantKey, string][] = [];
        await editTenants(context, (current) => {
          if (current.snapshot.byId.has(id))
            throw new CliError(
              'refused',
              `tenant ${id} already exists in ${context.file}`,
              `rotate its secrets with \`meetctl tenant rotate ${id}\`, or remove it first`,
            );
          generated.length = 0;
          const next = { id, apiSecret: null as string | null, appId: null as string | null, appSecret: null as string | null };
          if (wanted.api === generate) generated.push(['api_secret', (next.apiSecret = generatedSecret())]);
          else if (wanted.api !== null) refuseHeld((next.apiSecret = wanted.api), 'the meeting-API secret given', current.snapshot, context.primary);
          if (wanted.appId === generate) generated.push(['app_id', (next.appId = generatedAppId(id, current.snapshot, context.primary))]);
          else if (wanted.appId !== null) refuseHeld((next.appId = wanted.appId), `app id ${JSON.stringify(wanted.appId)}`, current.snapshot, context.primary);
          if (wanted.appSecret === generate) generated.push(['app_secret', (next.appSecret = generatedSecret())]);
          else if (wanted.appSecret !== null) refuseHeld((next.appSecret = wanted.appSecret), 'the app secret given', current.snapshot, context.primary);
          if (next.apiSecret !== null && next.apiSecret === next.appSecret)
            throw new CliError('refused', 'the meeting-API secret and the app secret must differ');
          const clash = pathClash([...fileTenants(current.snapshot), next], context.primary.appId);
          if (clash !== null) throw new CliError('refused', clash, 'give another app id (or tenant id): a gateway path must name one tenant');
          return { text: appendTenantText(current.text, next), expected: [...fileTenants(current.snapshot), next] };
        });
        printGenerated(io, generated);
        const has = [wanted.api !== null ? 'a meeting-API secret' : null, wanted.appId !== null ? 'an embed app' : null].filter(Boolean).join(' and ');
        io.err(
          `Tenant ${id} added to ${context.file} with ${has}.${generated.length > 0 ? ' Generated values are shown only this once: give them to the platform now.' : ''}\nA running service picks it up within a second.\n${unnamedWarning(context)}${idWarning(id)}`,
        );
      }),
    );
  withFileOptions(add);

  const list = tenant
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
        ].map(({ tenant, source }) => ({ view: viewOf(tenant, source, false), previous: previousViews(tenant, false, now) }));
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
          io.err(`No tenants: ${context.file} holds none and no primary secret is set. Add one with \`meetctl tenant add ID\`.\n`);
          return;
        }
        const has = (value: string | null) => (value === null ? '-' : masked);
        const graces = views.map(({ previous }) => graceText(previous));
        // The column only when some tenant is in (or past) a rotation's grace: the usual table stays as narrow as before.
        const withGrace = graces.some((g) => g.length > 0);
        io.out(
          table([
            ['ID', 'SOURCE', 'API SECRET', 'APP ID', 'APP SECRET', ...(withGrace ? ['REPLACED SECRET'] : [])],
            ...views.map(({ view: v }, i) => [
              v.id,
              v.source === 'env' ? 'env file' : 'tenants file',
              has(v.api_secret),
              v.app_id ?? '-',
              has(v.app_secret),
              ...(withGrace ? [graces[i]!.join(', ') || '-'] : []),
            ]),
          ]),
        );
      }),
    );
  withFileOptions(list);

  const show = tenant
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
        if (found === null) throw new CliError('refused', `no tenant ${JSON.stringify(id)} in ${context.file}`, 'see `meetctl tenant list`');
        const view = viewOf(found, id === primaryTenantId ? 'env' : 'file', options.reveal === true);
        const previous = previousViews(found, options.reveal === true, Date.now());
        if (options.json) {
          io.out(`${JSON.stringify({ ...view, ...previous }, null, 2)}\n`);
          return;
        }
        const from = view.source === 'env' ? context.envFile : context.file;
        const graceRows = Object.entries(previous).map(([key, v]) => [key, `${v.value} ${v.active ? 'valid until' : 'ended'} ${v.until}`]);
        io.out(
          table([
            ['id', view.id],
            ['file', from],
            ['api_secret', view.api_secret ?? '-'],
            ['app_id', view.app_id ?? '-'],
            ['app_secret', view.app_secret ?? '-'],
            ...graceRows,
          ]),
        );
      }),
    );
  withFileOptions(show);

  const remove = tenant
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
          if (!current.snapshot.byId.has(id)) throw new CliError('refused', `no tenant ${id} in ${context.file}`, 'see `meetctl tenant list`');
          return { text: removeTenantText(current.text, id, context.file), expected: fileTenants(current.snapshot).filter((t) => t.id !== id) };
        });
        io.out(`removed ${id}\n`);
        io.err(`Tenant ${id} removed from ${context.file}; a running service stops accepting its secrets within a second.\n${unnamedWarning(context)}`);
      }),
    );
  withFileOptions(remove);

  const rotate = tenant
    .command('rotate')
    .description("replace a tenant's secret(s) with generated ones, printed once on standard output as key=value lines; the old ones keep working for a grace")
    .argument('<id>', 'tenant id')
    .option('--api', 'only the meeting-API secret')
    .option('--app', 'only the app secret (the app id stays)')
    .option(
      '--grace <duration>',
      'how long the replaced secret keeps working beside the new one: 0 (ends at once), 90s, 30m, 24h, 7d; at most 30d (default: 24h)',
    )
    .option('--finish', 'end the grace of the secret(s) a rotation replaced, now; no new secret is made')
    .action((id: string, options: Record<string, unknown>) =>
      mapped(async () => {
        if (id === primaryTenantId)
          throw new CliError(
            'refused',
            "the primary tenant's secret is COMPAT_API_SHARED_SECRET in the env file; meetctl tenant does not rewrite it",
            'edit the env file and restart the service',
          );
        checkedId(id);
        const finish = options.finish === true;
        if (finish && options.grace !== undefined) throw new CliError('usage', '--finish ends a grace now: give it without --grace');
        const grace = typeof options.grace === 'string' ? graceMs(options.grace) : defaultGraceMs;
        const context = tenantContext(options, io);
        const now = Date.now();
        // Whole seconds in the file, rounded up: the grace is never shorter than asked.
        const until = Math.ceil((now + grace) / 1000) * 1000;
        const generated: [TenantKey, string][] = [];
        const ended: Kind[] = [];
        const cut: Kind[] = [];
        await editTenants(context, (current) => {
          const old = current.snapshot.byId.get(id);
          if (old === undefined) throw new CliError('refused', `no tenant ${id} in ${context.file}`, 'see `meetctl tenant list`');
          const both = options.api !== true && options.app !== true;
          if (options.api === true && old.apiSecret === null) throw new CliError('refused', `tenant ${id} has no meeting-API secret to rotate`);
          if (options.app === true && old.appSecret === null) throw new CliError('refused', `tenant ${id} has no app secret to rotate`);
          const kinds = (['api', 'app'] as const).filter((k) => (both || options[k] === true) && (k === 'api' ? old.apiSecret : old.appSecret) !== null);
          generated.length = ended.length = cut.length = 0;
          let text = current.text;
          let next: Tenant = old;
          for (const kind of kinds) {
            const previous = old[previousKey[kind]];
            if (finish) {
              if (previous === undefined) continue;
              if (inGrace(previous, now)) ended.push(kind);
              text = setPreviousText(text, id, kind, null, context.file);
              next = withPrevious(next, kind, null);
              continue;
            }
            if (inGrace(previous, now)) cut.push(kind);
            const key = kind === 'api' ? 'api_secret' : 'app_secret';
            const secret = generatedSecret();
            const replaced = (kind === 'api' ? old.apiSecret : old.appSecret)!;
            text = setTenantValueText(text, id, key, secret, context.file);
            const kept = grace > 0 ? { secret: replaced, until } : null;
            text = setPreviousText(text, id, kind, kept, context.file);
            next = withPrevious(kind === 'api' ? { ...next, apiSecret: secret } : { ...next, appSecret: secret }, kind, kept);
            generated.push([key, secret]);
          }
          if (finish && next === old) throw new CliError('refused', `tenant ${id} has no replaced secret to end`, 'nothing was changed');
          return { text, expected: fileTenants(current.snapshot).map((t) => (t.id === id ? next : t)) };
        });
        if (finish) {
          io.out(`ended ${id}\n`);
          io.err(
            `Tenant ${id}: ${ended.length > 0 ? `the replaced ${ended.map((k) => `${k}_secret`).join(' and ')} stops working within a second` : 'the replaced secrets had already ended'}; removed from ${context.file}.\n${unnamedWarning(context)}`,
          );
          return;
        }
        printGenerated(io, generated);
        const keys = generated.map(([key]) => key).join(' and ');
        const old =
          grace > 0
            ? `The old value keeps working until ${untilText(until)}; give the new one (shown only this once) to the platform now, then end the old one with \`meetctl tenant rotate ${id} --finish\`.`
            : 'The old value stops working within a second; give the new one (shown only this once) to the platform now.';
        const dropped =
          cut.length > 0
            ? `warning: the ${cut.map((k) => `${k}_secret`).join(' and ')} an earlier rotation replaced was still in its grace; it stops working now\n`
            : '';
        io.err(`Tenant ${id}: ${keys} replaced in ${context.file}. ${old}\n${dropped}${unnamedWarning(context)}`);
      }),
    );
  withFileOptions(rotate);
}
