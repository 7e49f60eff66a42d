import http from 'node:http';

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/** A keep-alive HTTP/1.1 client for setup calls and the keeper (fetch costs more per call). */
export class Client {
  private readonly agent: http.Agent;

  constructor(
    readonly base: string,
    maxSockets = 32,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  request(
    method: string,
    path: string,
    options: { json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const headers: Record<string, string> = {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    };
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${this.base}${path}`,
        { method, agent: this.agent, headers, timeout: 30_000 },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The value of cookie `name` in a Set-Cookie header (one string or several). */
export function cookieFrom(setCookie: string | readonly string[] | undefined, name: string): string | null {
  const all = setCookie === undefined ? [] : typeof setCookie === 'string' ? [setCookie] : setCookie;
  for (const line of all) {
    const match = new RegExp(`(?:^|;\\s*)${name}=([^;]*)`).exec(line);
    if (match) return match[1]!;
  }
  return null;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at a time; rejects on the first failure. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
