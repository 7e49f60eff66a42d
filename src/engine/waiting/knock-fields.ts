import { invalidField } from '../errors.js';

export const nameBounds = { min: 1, max: 64 } as const;
export const noteBounds = { max: 280 } as const;

// Names end up in lists, timelines and CSV lines: no control characters at all. A note is
// free text and may keep its line breaks and tabs.
const nameControl = /\p{Cc}/u;
const noteControl = /[^\P{Cc}\n\t]/u;

const length = (value: string): number => [...value].length;

/** Markup is kept as typed: names and notes are plain text, escaped by whoever renders them. */
export function checkName(value: unknown): string {
  if (typeof value !== 'string') throw invalidField('name', 'name is required and must be a string');
  const name = value.trim();
  if (length(name) < nameBounds.min || length(name) > nameBounds.max) {
    throw invalidField('name', `name must be ${nameBounds.min} to ${nameBounds.max} characters long`);
  }
  if (nameControl.test(name)) throw invalidField('name', 'name must not contain control characters');
  return name;
}

export function checkNote(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalidField('note', 'note must be a string');
  const note = value.trim();
  if (length(note) > noteBounds.max) throw invalidField('note', `note must be at most ${noteBounds.max} characters long`);
  if (noteControl.test(note)) throw invalidField('note', 'note must not contain control characters other than line breaks and tabs');
  return note;
}
