import { Writable } from 'node:stream';

/** A stream a pino logger writes to, keeping every line (JSON) as a daemon's stdout would hold them. */
export function memoryLog(): { readonly lines: string[]; readonly sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  return { lines, sink };
}
