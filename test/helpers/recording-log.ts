import type { EngineLog } from '../../src/engine/listeners.js';

/** An engine log that keeps its entries, so a test can see what the service reported. */
export class RecordingLog implements EngineLog {
  readonly entries: { readonly event: string; readonly err: unknown; readonly message: string }[] = [];

  error(fields: { readonly err: unknown; readonly event: string }, message: string): void {
    this.entries.push({ event: fields.event, err: fields.err, message });
  }
}
