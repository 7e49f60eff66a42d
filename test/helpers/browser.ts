import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const chromiumPath = '/usr/bin/chromium';
export const artifactsDir = fileURLToPath(new URL('../../test-results/', import.meta.url));

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--allow-loopback-in-peer-connection',
  '--auto-select-desktop-capture-source=Entire screen',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const netnsVariable = 'MEET_E2E_NETNS';

/**
 * Runs the calling test file again inside a new network namespace that has only a loopback
 * interface, so the daemon, Chromium and every request stay on loopback and no packet can
 * leave. Returns true in the parent (which then only waits for the child's TAP); false inside.
 * Where namespaces cannot be made (no root), the file runs in place and says so.
 */
export function inLoopbackNamespace(t: Test, testFile: string): boolean {
  if (process.env[netnsVariable]) return false;
  const name = `meet-e2e-${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', name], { stdio: 'pipe' });
    execFileSync('ip', ['netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'pipe' });
  } catch (err) {
    t.comment(`no network namespace (${(err as Error).message.split('\n')[0]}); running on the host's loopback`);
    return false;
  }
  t.teardown(() => {
    execFileSync('ip', ['netns', 'del', name], { stdio: 'pipe' });
  });
  // A subtest: tap waits for it and reports its result; nothing here needs its end.
  void t.spawn('ip', ['netns', 'exec', name, process.execPath, ...process.execArgv, fileURLToPath(testFile)], {
    env: { ...process.env, [netnsVariable]: name },
  }, 'inside a loopback-only network namespace');
  return true;
}

export interface BrowserSession {
  readonly browser: Browser;
  newPage(name: string): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  screenshot(page: Page, name: string): Promise<void>;
}

/**
 * One Chromium for the test; each person gets a context of her own (own cookies, own camera).
 * `extraArgs` adds switches (e.g. --ignore-certificate-errors behind a self-signed TLS proxy).
 */
export async function openBrowser(t: Test, extraArgs: readonly string[] = []): Promise<BrowserSession> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs, ...extraArgs] });
  t.teardown(() => browser.close());
  mkdirSync(artifactsDir, { recursive: true });
  return {
    browser,
    async newPage(name) {
      const context = await browser.newContext({ permissions: ['camera', 'microphone'] });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(`${name}: ${String(err)}`));
      return { page, context, errors };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: `${artifactsDir}${name}.png`, fullPage: true }).catch(() => {});
    },
  };
}

/**
 * Counts RTCPeerConnection and WebSocket objects the page creates, before any of its own
 * scripts run, so a test can show that a waiting guest has neither.
 */
export async function countConnections(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as Record<string, unknown>;
    w.__meetCounts = { peerConnections: 0, webSockets: 0 };
    w.__meetPeers = [];
    w.__meetSocketUrls = [];
    const counts = w.__meetCounts as { peerConnections: number; webSockets: number };
    const peers = w.__meetPeers as RTCPeerConnection[];
    const socketUrls = w.__meetSocketUrls as string[];
    const PC = window.RTCPeerConnection;
    window.RTCPeerConnection = class extends PC {
      constructor(...args: ConstructorParameters<typeof RTCPeerConnection>) {
        super(...args);
        counts.peerConnections += 1;
        peers.push(this);
      }
    };
    const WS = window.WebSocket;
    window.WebSocket = class extends WS {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        counts.webSockets += 1;
        socketUrls.push(String(args[0]));
      }
    };
  });
}

export function connectionCounts(page: Page): Promise<{ peerConnections: number; webSockets: number }> {
  return page.evaluate(() => (window as unknown as { __meetCounts: { peerConnections: number; webSockets: number } }).__meetCounts);
}

/** Sum of a stat over the page's inbound RTP streams of one kind (e.g. framesDecoded of video). */
export function inboundTotal(page: Page, kind: 'audio' | 'video', stat: 'framesDecoded' | 'bytesReceived' | 'packetsReceived'): Promise<number> {
  return page.evaluate(
    async ([kind, stat]) => {
      let total = 0;
      for (const pc of (window as unknown as { __meetPeers: RTCPeerConnection[] }).__meetPeers) {
        if (pc.connectionState === 'closed') continue;
        (await pc.getStats()).forEach((report: Record<string, unknown>) => {
          if (report.type === 'inbound-rtp' && report.kind === kind) total += Number(report[stat] ?? 0);
        });
      }
      return total;
    },
    [kind, stat] as const,
  );
}
