import type { Command } from 'commander';
import { inGrace, primaryTenantId, type PreviousSecret, type Tenant } from '../../compat/tenants/parse.js';
import { fileTenants, setPreviousText, setTenantValueText, untilText, type TenantKey } from '../../ops/tenants-file.js';
import { editTenants } from '../../ops/tenants-update.js';
import { CliError } from '../errors.js';
import type { CliIo } from '../io.js';
import { defaultGraceMs, generatedSecret, graceMs, tenantContext, unnamedWarning } from './context.js';
import { checkedId, mapped, printGenerated, withFileOptions } from './shared.js';

type Kind = 'api' | 'app';
const previousKey = { api: 'previousApiSecret', app: 'previousAppSecret' } as const;

/** The tenant with its previous secret of `kind` set, or gone (null). */
function withPrevious(tenant: Tenant, kind: Kind, previous: PreviousSecret | null): Tenant {
  const { [previousKey[kind]]: _dropped, ...rest } = tenant;
  return previous === null ? rest : { ...rest, [previousKey[kind]]: previous };
}

/** `meetctl tenant rotate ID`: new secrets, the replaced ones kept for a grace; `--finish` ends that grace. */
export function tenantRotate(tenant: Command, io: CliIo): void {
  const command = tenant
    .command('rotate')
    .description(
      "replace a tenant's secret(s) with generated ones, printed once on standard output as key=value lines; the old ones keep working for a grace",
    )
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
        if (finish && options.grace !== undefined)
          throw new CliError('usage', '--finish ends a grace now: give it without --grace');
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
          if (old === undefined)
            throw new CliError('refused', `no tenant ${id} in ${context.file}`, 'see `meetctl tenant list`');
          const both = options.api !== true && options.app !== true;
          if (options.api === true && old.apiSecret === null)
            throw new CliError('refused', `tenant ${id} has no meeting-API secret to rotate`);
          if (options.app === true && old.appSecret === null)
            throw new CliError('refused', `tenant ${id} has no app secret to rotate`);
          const kinds = (['api', 'app'] as const).filter(
            (k) => (both || options[k] === true) && (k === 'api' ? old.apiSecret : old.appSecret) !== null,
          );
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
            next = withPrevious(
              kind === 'api' ? { ...next, apiSecret: secret } : { ...next, appSecret: secret },
              kind,
              kept,
            );
            generated.push([key, secret]);
          }
          if (finish && next === old)
            throw new CliError('refused', `tenant ${id} has no replaced secret to end`, 'nothing was changed');
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
  withFileOptions(command);
}
