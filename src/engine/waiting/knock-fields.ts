import { describeNameProblem, nameProblem } from '../display-name.js';
import { invalidField } from '../errors.js';

export const nameBounds = { min: 1, max: 64 } as const;
export const noteBounds = { max: 280 } as const;

// A note is free text and may keep its line breaks and tabs. It may not carry bidi
// embeddings, overrides or isolates, which reorder what the moderator reads around them, nor
// tag characters (text no one sees). Other format characters stay: a note is prose, where
// LRM/RLM, ZWJ/ZWNJ and soft hyphens have honest uses, and it is never shown as a name.
const noteControl = /[^\P{Cc}\n\t]/u;
const noteHidden = /[\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

const length = (value: string): number => [...value].length;

/**
 * Markup is kept as typed: names and notes are plain text, escaped by whoever renders them.
 * A name also obeys the display-name rule (display-name.ts): no invisible or text-direction
 * characters, not "System", no role in brackets at its end.
 */
export function checkName(value: unknown): string {
  if (typeof value !== 'string') throw invalidField('name', 'name is required and must be a string');
  const name = value.trim();
  const count = length(name);
  if (count < nameBounds.min || count > nameBounds.max) {
    throw invalidField('name', `name must be ${nameBounds.min} to ${nameBounds.max} characters long`);
  }
  const problem = nameProblem(name);
  if (problem) throw invalidField('name', `name ${describeNameProblem(problem)}`);
  return name;
}

export function checkNote(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalidField('note', 'note must be a string');
  const note = value.trim();
  if (length(note) > noteBounds.max)
    throw invalidField('note', `note must be at most ${noteBounds.max} characters long`);
  if (noteControl.test(note))
    throw invalidField('note', 'note must not contain control characters other than line breaks and tabs');
  if (noteHidden.test(note))
    throw invalidField('note', 'note must not contain text-direction controls or tag characters');
  return note;
}
