import type { Meeting, Role } from './meeting.js';

export interface AttendanceParticipant {
  readonly participantId: string;
  readonly name: string;
  readonly role: Role;
  readonly joinedAt: string;
  readonly leftAt: string | null;
  readonly externalId?: string;
}

/** A request a moderator refused (barred or not). The person was never admitted through it. */
export interface Refusal {
  readonly requestId: string;
  readonly name: string;
  readonly refusedAt: string;
  readonly barred: boolean;
}

export interface Attendance {
  readonly meeting: Meeting;
  /** In join order. */
  readonly participants: readonly AttendanceParticipant[];
  /** In refusal order; the sheet lists them at the bottom with status Refused. */
  readonly refused: readonly Refusal[];
}

export const attendanceCsvHeader = ['name', 'role', 'status', 'joined_at', 'left_at', 'refused_at'] as const;

/**
 * A spreadsheet program runs a cell starting with = + - @ (or a tab/CR) as a formula; names
 * are typed by strangers, so such cells get a leading apostrophe.
 */
function cell(value: string): string {
  const inert = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(inert) ? `"${inert.replace(/"/g, '""')}"` : inert;
}

export function attendanceCsv(attendance: Attendance): string {
  const rows: string[][] = [[...attendanceCsvHeader]];
  for (const p of attendance.participants) rows.push([p.name, p.role, 'Attended', p.joinedAt, p.leftAt ?? '', '']);
  for (const r of attendance.refused) rows.push([r.name, '', 'Refused', '', '', r.refusedAt]);
  return rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
