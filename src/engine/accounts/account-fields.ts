import { checkName } from '../waiting/knock-fields.js';
import { invalidField } from '../errors.js';

export const emailBounds = { max: 254, local: 64 } as const;

// Nothing invisible or out of place: no whitespace, controls, format characters (bidi, zero-width,
// soft hyphen, tags), unassigned or private-use code points, nor a second `@`.
const hidden = /[\s\p{C}]/u;
const shape = /^[^@]+@[^@]+$/u;

/**
 * An email as accounts keep it: NFC, lower case, then checked; null when it cannot be one. The
 * same normalisation for `user add` and sign-in, so `Ana@School.example` signs in as the account
 * made for `ana@school.example`, and a decomposed `é` as the composed one.
 */
export function normaliseEmail(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const email = raw.trim().normalize('NFC').toLowerCase();
  if (email.length > emailBounds.max || hidden.test(email) || !shape.test(email)) return null;
  const [local = '', domain = ''] = email.split('@');
  if ([...local].length > emailBounds.local || domain.startsWith('.') || domain.endsWith('.') || domain.includes('..'))
    return null;
  return email;
}

export function checkEmail(raw: unknown): string {
  const email = normaliseEmail(raw);
  if (email === null)
    throw invalidField(
      'email',
      `email must be one address (local@domain, at most ${emailBounds.max} characters, no spaces or invisible characters)`,
    );
  return email;
}

/** An account's name is shown to people as a display name is: the same rule (default: the email's local part). */
export function checkAccountName(raw: unknown, email: string): string {
  if (raw === undefined || raw === null || raw === '') return checkName(email.split('@')[0]);
  return checkName(raw);
}
