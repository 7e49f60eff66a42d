/**
 * The tenant whose secret last signed a call from each client address, remembered for the
 * calls that name no tenant: an LMS server sends all its calls from one address, so its
 * next call is tried with that tenant's secret first. A hint only orders the search; the
 * checksum is verified with the hinted tenant's secret like any other.
 *
 * Bounded: a Map keeps insertion order, so re-inserting on use and dropping the first key
 * when full is a least-recently-used list.
 */
export class ClientHints {
  private readonly byClient = new Map<string, string>();

  constructor(private readonly capacity = 4096) {}

  get(client: string): string | undefined {
    return this.byClient.get(client);
  }

  /** Remembers (or refreshes) the client's tenant; the least recently used client goes when full. */
  remember(client: string, tenantId: string): void {
    this.byClient.delete(client);
    if (this.byClient.size >= this.capacity) {
      const oldest = this.byClient.keys().next();
      if (!oldest.done) this.byClient.delete(oldest.value);
    }
    this.byClient.set(client, tenantId);
  }

  get size(): number {
    return this.byClient.size;
  }
}
