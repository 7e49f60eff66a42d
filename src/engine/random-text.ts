import { randomFillSync } from 'node:crypto';

/**
 * Random bytes as base64url, for ids and secrets, cut from a 4 KiB block of the CSPRNG.
 * A knock needs two of them; the call into the CSPRNG, not the bytes, is what costs, so one
 * refill serves about eighty knocks. Every byte is handed out once and never again.
 */
const block = Buffer.alloc(4096);
let used = block.length;

export function randomBase64url(bytes: number): string {
  if (bytes > block.length) throw new RangeError(`at most ${block.length} random bytes at a time`);
  if (used + bytes > block.length) {
    randomFillSync(block);
    used = 0;
  }
  const text = block.toString('base64url', used, used + bytes);
  used += bytes;
  return text;
}
