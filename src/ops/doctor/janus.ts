import { settings } from '../../config/settings.js';
import { check, configMissing, fail, ok, skip, warn } from './check.js';
import { findProgram } from './programs.js';

/**
 * SERVICE_MEDIA wants Janus (janus) or would use it (auto). The daemon's own Janus is the
 * program SERVICE_JANUS_BIN names; an external one (SERVICE_JANUS_URL, or the servers of
 * SERVICE_JANUS_URLS) is reached at start.
 */
export const janusCheck = check('janus', 'Janus', (ctx) => {
  if (ctx.config === null) return configMissing;
  const { media, janusBin, janusUrl, janusUrls } = ctx.config;
  if (media === 'mesh') return skip(`${settings.media.env}=mesh: meetings run browser to browser`);
  if (janusUrl !== null)
    return ok(
      `${settings.media.env}=${media}: the external Janus at ${settings.janusUrl.env} (reached when the daemon starts)`,
    );
  if (janusUrls !== null)
    return ok(
      `${settings.media.env}=${media}: ${janusUrls.length} external Janus servers in ${settings.janusUrls.env} (at least one must answer when the daemon starts)`,
    );
  const found = findProgram(janusBin, janusBin, ctx.env);
  if (found !== null) return ok(`${settings.media.env}=${media}: ${found} is installed`);
  const hint = `install Janus (apt install janus), set ${settings.janusBin.env} to its program or ${settings.janusUrl.env} to an external one, or set ${settings.media.env}=mesh`;
  if (media === 'janus')
    return fail(
      `${settings.media.env}=janus but ${janusBin} (${settings.janusBin.env}) is not an executable program: the daemon will not start`,
      hint,
    );
  return warn(
    `${settings.media.env}=auto and ${janusBin} (${settings.janusBin.env}) is not installed: meetings will use the browser-to-browser mesh (a handful of people)`,
    hint,
  );
});
