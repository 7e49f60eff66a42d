import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { NginxInputError } from './nginx-input-error.js';

function readFile(path: string, flag: string): Buffer {
  let stat;
  try {
    stat = statSync(path);
  } catch (err) {
    throw new NginxInputError(
      flag,
      `names a file that does not exist or cannot be reached: ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  if (!stat.isFile()) throw new NginxInputError(flag, `is not a regular file: ${path}`);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new NginxInputError(
      flag,
      `names a file that cannot be read: ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
}

/**
 * Checks what nginx would refuse at start, before any file is written: both files exist, the
 * certificate is a PEM certificate, the key a PEM private key, and they belong together.
 * Returns warnings that do not stop the command (a certificate that does not name the host,
 * or has expired: the operator may be about to renew it). The key's bytes are never printed.
 */
export function checkTlsPair(certPath: string, keyPath: string, serverName: string, now: Date): string[] {
  const certPem = readFile(certPath, '--tls-cert');
  const keyPem = readFile(keyPath, '--tls-key');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new NginxInputError('--tls-cert', `is not a PEM certificate: ${certPath}`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new NginxInputError('--tls-key', `is not an unencrypted PEM private key: ${keyPath}`);
  }
  if (!cert.checkPrivateKey(key))
    throw new NginxInputError('--tls-key', `is not the private key of the certificate ${certPath}`);
  const warnings: string[] = [];
  if (cert.checkHost(serverName) === undefined)
    warnings.push(`the certificate ${certPath} does not name ${serverName} (${cert.subjectAltName ?? cert.subject})`);
  if (new Date(cert.validTo).getTime() < now.getTime())
    warnings.push(`the certificate ${certPath} expired on ${cert.validTo}`);
  return warnings;
}
