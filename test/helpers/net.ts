import { createServer, type AddressInfo } from 'node:net';

/** Ports this test process was handed already: it never gets one twice. */
const handedOut = new Set<number>();

/**
 * A TCP port free on 127.0.0.1 right now, and not one this process was handed before. The
 * kernel may hand the port it just released to the next `listen(0)`, so two calls in a row
 * (say the engine's and the compat listener's address) could otherwise get the same port.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** `count` distinct free ports (see `freePort`). */
export async function freePorts(count: 2): Promise<[number, number]>;
export async function freePorts(count: 3): Promise<[number, number, number]>;
export async function freePorts(count: number): Promise<number[]>;
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await freePort());
  return ports;
}

/** Polls `check` until it holds, or fails naming `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 15_000, everyMs = 250): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
