import type { Command } from 'commander';
import { pathClash, type TenantSnapshot } from '../../compat/tenants/parse.js';
import {
  appendTenantText,
  fileTenants,
  holderOf,
  type PrimaryCredentials,
  type TenantKey,
} from '../../ops/tenants-file.js';
import { editTenants } from '../../ops/tenants-update.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import {
  checkedValue,
  generatedAppId,
  generatedSecret,
  idWarning,
  longEnough,
  secretFromFile,
  tenantContext,
  unnamedWarning,
} from './context.js';
import { checkedId, mapped, printGenerated, withFileOptions } from './shared.js';

const picked = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A credential meetctl makes: a marker no given value can equal (`--app-id generate` is an id). */
const generate = Symbol('generate');
type Wanted = string | typeof generate | null;

/** The credentials `tenant add` writes, from flags, files or the generator. */
function credentialsOf(options: Record<string, unknown>): { api: Wanted; appId: Wanted; appSecret: Wanted } {
  const apiGiven = [
    picked(options.apiSecret) !== null,
    picked(options.apiSecretFile) !== null,
    options.generate === true,
  ].filter(Boolean).length;
  if (apiGiven > 1) throw new CliError('usage', 'give only one of --api-secret, --api-secret-file and --generate');
  const appSecretGiven = [picked(options.appSecret) !== null, picked(options.appSecretFile) !== null].filter(
    Boolean,
  ).length;
  if (appSecretGiven > 1) throw new CliError('usage', 'give only one of --app-secret and --app-secret-file');
  if (options.apiSecretFile === '-' && options.appSecretFile === '-')
    throw new CliError('usage', 'only one of --api-secret-file and --app-secret-file can be - (standard input)');
  const generateApp = options.generateApp === true;
  if (generateApp && appSecretGiven > 0)
    throw new CliError(
      'usage',
      '--generate-app makes the app secret: give --app-secret/--app-secret-file or --generate-app, not both',
    );
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
  else if (picked(options.apiSecret) !== null)
    api = longEnough(checkedValue(String(options.apiSecret), '--api-secret'), '--api-secret');
  else if (picked(options.apiSecretFile) !== null)
    api = longEnough(
      checkedValue(secretFromFile(String(options.apiSecretFile), '--api-secret-file'), '--api-secret-file'),
      '--api-secret-file',
    );
  const appId: Wanted = appIdGiven === null ? (generateApp ? generate : null) : checkedValue(appIdGiven, '--app-id');
  let appSecret: Wanted = generateApp ? generate : null;
  if (picked(options.appSecret) !== null)
    appSecret = longEnough(checkedValue(String(options.appSecret), '--app-secret'), '--app-secret');
  else if (picked(options.appSecretFile) !== null)
    appSecret = longEnough(
      checkedValue(secretFromFile(String(options.appSecretFile), '--app-secret-file'), '--app-secret-file'),
      '--app-secret-file',
    );
  // Nothing asked for: a meeting-API secret is what almost every tenant needs.
  if (api === null && appId === null) api = generate;
  if (appId === generate && appSecret === null) appSecret = generate;
  return { api, appId, appSecret };
}

/** A value another tenant (the primary one included) already uses, as any kind of credential, is refused. */
function refuseHeld(value: string, what: string, snapshot: TenantSnapshot, primary: PrimaryCredentials): void {
  const holder = holderOf(value, snapshot, primary);
  if (holder !== null)
    throw new CliError(
      'refused',
      `${what} is already used by ${holder}; every tenant needs its own`,
      'give another value, or let meetctl generate one',
    );
}

/** `meetctl tenant add ID`: a new tenant, its secrets given, read from files or generated. */
export function tenantAdd(tenant: Command, io: CliIo): void {
  const command = tenant
    .command('add')
    .description('add a tenant; generated secrets are printed once on standard output as key=value lines')
    .argument('<id>', 'tenant id: 1-64 of A-Z a-z 0-9 . _ -')
    .option(
      '--api-secret <secret>',
      'its meeting-API (checksum) secret; visible to other users in the process list, prefer --api-secret-file',
    )
    .option('--api-secret-file <path>', 'read the meeting-API secret from a file (- for standard input)')
    .option(
      '--generate',
      'generate the meeting-API secret (32 random bytes, base64url); the default when no credential is given',
    )
    .option('--app-id <id>', "its embed gateway application id (the tokens' iss)")
    .option(
      '--app-secret <secret>',
      'its embed gateway HS256 secret; visible in the process list, prefer --app-secret-file',
    )
    .option('--app-secret-file <path>', 'read the app secret from a file (- for standard input)')
    .option('--generate-app', 'generate the app secret, and the app id unless --app-id gives it')
    .option(
      '--authenticated-guest',
      "its meeting-API viewers of ASK_MODERATOR meetings wait for a moderator, guest=true or not (upstream's authenticatedGuest; Greenlight, Canvas)",
    )
    .option('--no-authenticated-guest', 'its viewers enter directly whatever COMPAT_AUTHENTICATED_GUEST says')
    .action((id: string, options: Record<string, unknown>) =>
      mapped(async () => {
        checkedId(id);
        const wanted = credentialsOf(options);
        const authenticatedGuest = typeof options.authenticatedGuest === 'boolean' ? options.authenticatedGuest : null;
        if (authenticatedGuest !== null && wanted.api === null)
          throw new CliError(
            'usage',
            '--authenticated-guest applies to meeting-API joins: the tenant needs an api secret',
          );
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
          const next = {
            id,
            apiSecret: null as string | null,
            appId: null as string | null,
            appSecret: null as string | null,
            ...(authenticatedGuest !== null ? { authenticatedGuest } : {}),
          };
          if (wanted.api === generate) generated.push(['api_secret', (next.apiSecret = generatedSecret())]);
          else if (wanted.api !== null)
            refuseHeld(
              (next.apiSecret = wanted.api),
              'the meeting-API secret given',
              current.snapshot,
              context.primary,
            );
          if (wanted.appId === generate)
            generated.push(['app_id', (next.appId = generatedAppId(id, current.snapshot, context.primary))]);
          else if (wanted.appId !== null)
            refuseHeld(
              (next.appId = wanted.appId),
              `app id ${JSON.stringify(wanted.appId)}`,
              current.snapshot,
              context.primary,
            );
          if (wanted.appSecret === generate) generated.push(['app_secret', (next.appSecret = generatedSecret())]);
          else if (wanted.appSecret !== null)
            refuseHeld((next.appSecret = wanted.appSecret), 'the app secret given', current.snapshot, context.primary);
          if (next.apiSecret !== null && next.apiSecret === next.appSecret)
            throw new CliError('refused', 'the meeting-API secret and the app secret must differ');
          const clash = pathClash([...fileTenants(current.snapshot), next], context.primary.appId);
          if (clash !== null)
            throw new CliError(
              'refused',
              clash,
              'give another app id (or tenant id): a gateway path must name one tenant',
            );
          return { text: appendTenantText(current.text, next), expected: [...fileTenants(current.snapshot), next] };
        });
        printGenerated(io, generated);
        const has = [wanted.api !== null ? 'a meeting-API secret' : null, wanted.appId !== null ? 'an embed app' : null]
          .filter(Boolean)
          .join(' and ');
        io.err(
          `Tenant ${id} added to ${context.file} with ${has}.${generated.length > 0 ? ' Generated values are shown only this once: give them to the platform now.' : ''}\nA running service picks it up within a second.\n${unnamedWarning(context)}${idWarning(id)}`,
        );
      }),
    );
  withFileOptions(command);
}
