/**
 * Work that takes turns per key: a call for a key starts when the one before it for that key
 * settled (whatever its outcome); calls for other keys run alongside. The meeting API's writes
 * await the store, so two calls on one meeting (two creates of one meetingID, an `end` and the
 * sweep) would otherwise interleave where they used to run one after the other.
 */
export class KeyedTurns {
  private readonly last = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const result = (this.last.get(key) ?? Promise.resolve()).then(work);
    const settled = result.catch(() => undefined);
    this.last.set(key, settled);
    void settled.then(() => {
      if (this.last.get(key) === settled) this.last.delete(key);
    });
    return result;
  }
}
