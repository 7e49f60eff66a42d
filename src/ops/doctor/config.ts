import { check, fail, ok } from './check.js';

export const configCheck = check('config', 'Configuration', (ctx) => {
  if (ctx.configError !== null) {
    return fail(
      ctx.configError,
      `fix the value named above (in ${ctx.envFile.status === 'read' ? ctx.envFile.path : 'the environment'}${ctx.configFile ? ` or ${ctx.configFile}` : ''}, or the flag)`,
    );
  }
  const from = [ctx.envFile.status === 'read' ? ctx.envFile.path : null, ctx.configFile].filter((s) => s !== null);
  return ok(
    from.length > 0 ? `valid (read ${from.join(' and ')} and the environment)` : 'valid (defaults and the environment)',
  );
});
