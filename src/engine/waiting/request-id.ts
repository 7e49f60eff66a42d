import { randomBase64url } from '../random-text.js';

/**
 * The 64 characters of base64url in ASCII order, so that the text of a number written with them
 * sorts as the number does (SQLite compares TEXT keys bytewise).
 */
const ordered = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
const timeChars = 8; // 48 bits of milliseconds: enough until the year 10889

/**
 * A request id: the knock's millisecond (8 characters, in an alphabet that sorts like the number)
 * and then 128 random bits (22 characters of base64url), 30 URL-safe characters in all.
 *
 * Why the time first: request_id is the table's primary key, so each knock writes an entry in
 * that index. Random ids put each entry on a random page, and every page a commit dirties costs
 * (it is written to the WAL); ids that grow with time all land on the index's last page, which
 * the knocks of one group commit share. The random part is what makes the id unguessable, and
 * it keeps its full 128 bits; the time adds nothing an observer of the knock did not know.
 */
export function newRequestId(nowMs: number): string {
  let time = '';
  let rest = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < timeChars; i++) {
    time = ordered[rest % 64]! + time;
    rest = Math.floor(rest / 64);
  }
  return time + randomBase64url(16);
}
