import { readFileSync } from 'node:fs';
import { check, fail, ok, warn } from './check.js';
import { judgeSite } from './nginx.js';
import { placedStatements, type Placed } from './nginx-upstreams.js';

/** Variables that carry the query string (and a Referer carries a page's, token included). */
const leaking = /\$(request|request_uri|args|query_string|arg_\w+|http_referer)(?![\w])/;
const forceHint =
  'regenerate the site: meetctl nginx --install --force --tls-cert FILE --tls-key FILE (its format meet_noquery logs the path only)';

/**
 * Tokens, app JWTs, meeting-API checksums and passwords travel in query strings: a site that
 * logs $request (nginx's default format, combined) writes them to disk. Renders older than
 * log_format meet_noquery have no access_log line, so their servers log in combined.
 */
export function judgeAccessLog(placed: readonly Placed[]) {
  const formats = new Map<string, string>();
  for (const p of placed) {
    const m = /^log_format (\S+) (.*)$/.exec(p.statement);
    if (m) formats.set(m[1]!, m[2]!);
  }
  const logs = placed.filter((p) => /^access_log\s/.test(p.statement));
  const inServer = (p: Placed) => p.blocks[0] === 'server';
  const problems: string[] = [];
  const servers = new Set(placed.filter(inServer).map((p) => p.blockIds[0]));
  const siteLevel = logs.filter((p) => !inServer(p));
  for (const server of servers) {
    const own = logs.filter((p) => inServer(p) && p.blockIds[0] === server);
    if (own.length === 0 && siteLevel.length === 0)
      problems.push(`a server block has no access_log, so nginx's default (combined, with the query string) applies`);
  }
  for (const p of logs) {
    const [, target, format = 'combined'] = p.statement.split(' ');
    if (target === 'off') continue;
    const defined = formats.get(format);
    if (format === 'combined' || format === 'main')
      problems.push(`access_log ${target} uses ${format}, which logs $request with its query string`);
    else if (defined === undefined)
      problems.push(`access_log ${target} uses ${format}, defined outside the site: cannot tell what it logs`);
    else if (leaking.test(defined))
      problems.push(`access_log ${target} uses ${format}, which logs ${leaking.exec(defined)![0]}`);
  }
  return [...new Set(problems)];
}

export const nginxAccessLogCheck = check('nginx-log', 'nginx access log', (ctx) =>
  judgeSite(
    ctx.nginxFile,
    (file) => readFileSync(file, 'utf8'),
    (text) => {
      const problems = judgeAccessLog(placedStatements(text));
      if (problems.length === 0) return ok(`${ctx.nginxFile} logs paths without query strings`);
      const unknown = problems.every((p) => p.includes('cannot tell'));
      const detail = `${ctx.nginxFile}: ${problems.join('; ')}: session tokens, app JWTs and meeting-API checksums end up in the log`;
      return unknown ? warn(`${ctx.nginxFile}: ${problems.join('; ')}`, forceHint) : fail(detail, forceHint);
    },
  ),
);
