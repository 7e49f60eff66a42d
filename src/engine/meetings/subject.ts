import { invalidField } from '../errors.js';

export const subjectBounds = { max: 128 } as const;

// A subject is one line shown as the meeting's heading and its page title, next to the
// service's own words: no controls or line breaks, nothing that reorders the text around it
// (bidi embeddings, overrides, isolates) and no tag characters (text nobody sees).
const forbidden = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

/**
 * The subject a moderator sets: trimmed, 0 to 128 characters ('' clears it). Markup is kept
 * as typed: a subject is plain text, and every client renders it as text.
 */
export function checkSubject(value: unknown): string {
  if (typeof value !== 'string') throw invalidField('subject', 'subject must be a string');
  const subject = value.trim();
  if ([...subject].length > subjectBounds.max)
    throw invalidField('subject', `subject must be at most ${subjectBounds.max} characters long`);
  if (forbidden.test(subject))
    throw invalidField('subject', 'subject must be one line, without control or text-direction characters');
  return subject;
}
