import { request } from 'node:http';
import { createServer } from 'node:net';
import type { ListenAddress } from '../../config/parsers.js';
import type { Config } from '../../config/settings.js';
import { check, configMissing, fail, ok, reason, skip, type DoctorContext } from './check.js';

/** What GET /healthz answers on a listener of this service. */
export const serviceName = 'meeting-service';

/** Tries to listen where the daemon would; returns the errno code, or null when the port is free. */
export function tryListen(addr: ListenAddress): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err) => resolve(reason(err)));
    server.listen({ host: addr.host, port: addr.port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** The address to reach a listener on: a wildcard listener answers on loopback. */
function reachable(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

/** GET /healthz: 'ours', or what answered instead (a sentence completing "the port is held by …"). */
export function whoHolds(
  addr: ListenAddress,
  timeoutMs = 2000,
): Promise<{ ours: true } | { ours: false; what: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: reachable(addr.host),
        port: addr.port,
        path: '/healthz',
        method: 'GET',
        timeout: timeoutMs,
        headers: { accept: 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          // A program that streams forever is not us: stop reading past a small answer.
          if (body.length > 4096) res.destroy();
        });
        res.on('close', () => {
          let service: unknown;
          try {
            service = (JSON.parse(body) as { service?: unknown }).service;
          } catch {
            service = undefined;
          }
          if (res.statusCode === 200 && service === serviceName) resolve({ ours: true });
          else
            resolve({
              ours: false,
              what: `another program (GET /healthz answered HTTP ${res.statusCode ?? '?'}${typeof service === 'string' ? ` for ${JSON.stringify(service.slice(0, 40))}` : ''})`,
            });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) =>
      resolve({
        ours: false,
        what: `another program (GET /healthz: ${err.message === 'timeout' ? 'no answer' : reason(err)})`,
      }),
    );
    req.end();
  });
}

function shown(addr: ListenAddress): string {
  return addr.host.includes(':') ? `[${addr.host}]:${addr.port}` : `${addr.host}:${addr.port}`;
}

/**
 * `sibling`: another listener of the same process; when this port answers no /healthz of its
 * own (HTTP 404) but the sibling is this service, the port is this service's too.
 */
export async function judgePort(variable: string, addr: ListenAddress, sibling: ListenAddress | null = null) {
  if (addr.port === 0) return skip(`${variable} ${shown(addr)}: port 0, the system picks a free one`);
  const error = await tryListen(addr);
  if (error === null) return ok(`${shown(addr)} is free`);
  if (error === 'EADDRINUSE') {
    const holder = await whoHolds(addr);
    if (holder.ours) return ok(`${shown(addr)} is held by this service (it is running)`);
    if (sibling !== null && sibling.port !== 0 && holder.what.includes('HTTP 404') && (await whoHolds(sibling)).ours) {
      return ok(`${shown(addr)} is held by this service (its engine listener on ${shown(sibling)} answers /healthz)`);
    }
    return fail(
      `port ${addr.port} (${variable} ${shown(addr)}) is in use by ${holder.what}`,
      `stop the other program (ss -ltnp 'sport = :${addr.port}' names it), or set ${variable} to a free port`,
    );
  }
  if (error === 'EACCES') {
    return fail(
      `port ${addr.port} (${variable}) needs privileges to listen on`,
      `the service runs without capabilities: use a port above 1023 (nginx listens on 80 and 443) in ${variable}`,
    );
  }
  if (error === 'EADDRNOTAVAIL' || error === 'ENOTFOUND' || error === 'EAI_AGAIN') {
    return fail(
      `${variable} ${shown(addr)}: ${addr.host} is not an address of this machine (${error})`,
      `set ${variable} to an address of this machine, e.g. 127.0.0.1:${addr.port} behind nginx`,
    );
  }
  return fail(
    `${variable} ${shown(addr)}: cannot listen (${error})`,
    `set ${variable} to an address and port this machine can listen on`,
  );
}

/** The compat listener starts when COMPAT_ENABLED says so, or (auto) when one of its surfaces is set. */
export function compatListens(config: Config): boolean {
  if (config.compatEnabled === 'true') return true;
  if (config.compatEnabled === 'false') return false;
  return config.compatApiSharedSecret !== null || config.jitsiAppSecret !== null;
}

export const enginePortCheck = check('engine-port', 'Engine port', (ctx: DoctorContext) => {
  if (ctx.config === null) return configMissing;
  return judgePort('SERVICE_HTTP_ADDR', ctx.config.httpAddr);
});

export const compatPortCheck = check('compat-port', 'Compat port', (ctx: DoctorContext) => {
  if (ctx.config === null) return configMissing;
  if (!compatListens(ctx.config)) return skip('the compat listener does not start with this configuration');
  return judgePort('COMPAT_HTTP_ADDR', ctx.config.compatHttpAddr, ctx.config.httpAddr);
});
