import { statSync } from 'node:fs';
import { check, fail, ok, reason, skip, warn } from './check.js';
import { findProgram, firstLines, runProgram } from './programs.js';

/** Where `meetctl install --runtime native` puts the unit, and so where doctor looks unless told. */
export const defaultUnitFile = '/etc/systemd/system/meet.service';

export const unitCheck = check('systemd-unit', 'systemd unit', async (ctx) => {
  let stat;
  try {
    stat = statSync(ctx.unitFile, { throwIfNoEntry: false });
  } catch (err) {
    return fail(`cannot read ${ctx.unitFile}: ${reason(err)}`, 'run meetctl doctor as root');
  }
  if (stat === undefined) return skip(`${ctx.unitFile} does not exist (not run under systemd here)`);
  if (!stat.isFile())
    return fail(`${ctx.unitFile} is not a regular file`, 'pass --unit-file with the unit systemd loads');
  const analyze = findProgram('systemd-analyze', ctx.env.MEET_SYSTEMD_ANALYZE_BIN ?? null, ctx.env);
  if (analyze === null) return skip(`${ctx.unitFile} present; systemd-analyze is not installed, so it is not verified`);
  const result = await runProgram(analyze, ['verify', ctx.unitFile], ctx.env, 30_000);
  if (result.code === null)
    return fail(
      `systemd-analyze verify could not run: ${result.error ?? 'unknown error'}`,
      'check the systemd installation',
    );
  if (result.code !== 0) {
    return fail(
      `${ctx.unitFile}: ${firstLines(result.output, 3)}`,
      'fix the line systemd names (meetctl install --runtime native writes a unit that verifies), then systemctl daemon-reload',
    );
  }
  if (result.output !== '')
    return warn(
      `${ctx.unitFile} verifies with warnings: ${firstLines(result.output, 3)}`,
      'systemd names the line to look at',
    );
  return ok(`${ctx.unitFile} verifies`);
});
