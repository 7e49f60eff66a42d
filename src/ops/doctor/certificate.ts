import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { check, fail, ok, reason, skip, warn, type DoctorContext, type Outcome } from './check.js';
import { judgeSite, siteStatements } from './nginx.js';

const dayMs = 86_400_000;
/** Let's Encrypt renews 30 days ahead; under two weeks left, renewal has been failing for two weeks. */
export const certificateWarnDays = 14;

/** The certificate files the site serves (`ssl_certificate`), without those named by variables (nginx picks them per request). */
export function siteCertificates(statements: readonly string[]): string[] {
  const files = statements.flatMap((s) => {
    const m = /^ssl_certificate\s+["']?([^"'\s]+)["']?$/.exec(s);
    return m && !m[1]!.includes('$') && !m[1]!.startsWith('data:') ? [m[1]!] : [];
  });
  return [...new Set(files)];
}

/** One certificate file against the clock: expired or not yet valid fails, under two weeks warns. */
export function judgeCertificate(file: string, now: Date): Outcome {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(file));
  } catch (err) {
    if (reason(err) === 'EACCES')
      return skip(`${file} is readable by root only: run meetctl doctor as root to see its dates`);
    return fail(
      `${file}: not a readable PEM certificate (${reason(err)})`,
      'point ssl_certificate at the certificate chain, or run meetctl nginx --install --force --tls-cert FILE --tls-key FILE',
    );
  }
  const renew = `renew it (certbot renew, or your CA), then reload nginx (systemctl reload nginx); meetctl nginx --install --force --tls-cert FILE --tls-key FILE installs new files`;
  const to = new Date(cert.validTo);
  const from = new Date(cert.validFrom);
  if (to.getTime() <= now.getTime())
    return fail(`${file} expired on ${to.toISOString()}: browsers refuse the site`, renew);
  if (from.getTime() > now.getTime())
    return fail(
      `${file} is valid only from ${from.toISOString()}, after the clock's ${now.toISOString()}`,
      'check the clock (see the Clock check), or install a certificate valid today',
    );
  const days = Math.floor((to.getTime() - now.getTime()) / dayMs);
  const detail = `${file} valid until ${to.toISOString().slice(0, 10)} (${days} day${days === 1 ? '' : 's'} left)`;
  return days < certificateWarnDays ? warn(detail, renew) : ok(detail);
}

const rank = { fail: 3, warn: 2, skip: 1, ok: 0 } as const;

/** Every certificate of the site judged; the worst decides, and each is named. */
export function judgeSiteCertificates(ctx: Pick<DoctorContext, 'nginxFile' | 'now'>): Outcome {
  return judgeSite(
    ctx.nginxFile,
    (file) => siteCertificates(siteStatements(file)),
    (files) => {
      if (files.length === 0) return skip(`${ctx.nginxFile} names no ssl_certificate (HTTP only)`);
      const judged = files.map((file) => judgeCertificate(file, ctx.now));
      const worst = judged.reduce((a, b) => (rank[b.status] > rank[a.status] ? b : a));
      if (worst.status === 'ok') return ok(judged.map((j) => j.detail).join('; '));
      return {
        ...worst,
        detail: judged
          .filter((j) => j.status === worst.status)
          .map((j) => j.detail)
          .join('; '),
      };
    },
  );
}

export const certificateCheck = check('certificate', 'TLS certificate', (ctx) => judgeSiteCertificates(ctx));
