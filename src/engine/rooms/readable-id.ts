import { randomInt } from 'node:crypto';
import { formatReadableId, readableId } from '../../protocol/room-code.js';

/** A uniform integer in [0, max): node's crypto by default (unbiased); a test passes its own. */
export type RandomBelow = (max: number) => number;

/**
 * A new room's id when its creator chooses none (issue 32 point 5): ten letters drawn uniformly
 * from node's cryptographic generator, `abc-defg-hij`, about 47 bits (26^10), so ids cannot be
 * found by walking through them.
 */
export function newReadableId(randomBelow: RandomBelow = randomInt): string {
  let letters = '';
  for (let i = 0; i < readableId.letters; i++) letters += readableId.alphabet[randomBelow(readableId.alphabet.length)];
  return formatReadableId(letters);
}
