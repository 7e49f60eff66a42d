import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import tap, { type Test } from 'tap';
import { expectNoAxeViolations } from './accessibility.js';
import { keepAnnouncementsIn } from './announcements.js';

export const chromiumPath = '/usr/bin/chromium';
export const artifactsDir = fileURLToPath(new URL('../../test-results/', import.meta.url));

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  // The fake camera at 5 frames a second instead of its 20: every page encodes (and every peer decodes) its
  // 1280x720 picture, the browser tier's largest CPU cost in CI; 5 is Chromium's floor, and every test
  // that counts frames waits for a rise of at most 10.
  '--use-fake-device-for-media-stream=fps=5',
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

/** Playwright's limit for one action or page load (its own default is 30 s), for every page of a test. */
const actionTimeoutMs = 60_000;

/**
 * Runs the calling test file again inside a new network namespace that has only a loopback
 * interface, so the daemon, Chromium and every request stay on loopback and no packet can
 * leave. Returns true in the parent (which then only waits for the child's TAP); false inside.
 * Where namespaces cannot be made (no root), the file runs in place and says so.
 */
export function inLoopbackNamespace(t: Test, testFile: string): boolean {
  return inPrivateNamespace(t, testFile, false);
}

/** The private addresses the namespace of `inPrivateNetwork` gives its veth pair (both ends its own). */
export const privatePair = { inside: '10.200.0.1', outside: '10.200.0.2', prefix: 30 } as const;

/**
 * As inLoopbackNamespace, and the namespace also owns both ends of a veth pair with private
 * addresses (privatePair, a /30), up: a program that gathers no loopback candidates (Janus 1.1.2)
 * finds an interface with an address, and still no packet can leave, since nothing outside the
 * namespace is attached to either end.
 */
export function inPrivateNetwork(t: Test, testFile: string): boolean {
  return inPrivateNamespace(t, testFile, true);
}

function inPrivateNamespace(t: Test, testFile: string, veth: boolean): boolean {
  if (process.env[netnsVariable]) return false;
  const name = `meet-e2e-${process.pid}`;
  const inside = (...args: string[]) => execFileSync('ip', ['netns', 'exec', name, 'ip', ...args], { stdio: 'pipe' });
  try {
    execFileSync('ip', ['netns', 'add', name], { stdio: 'pipe' });
  } catch (err) {
    t.comment(`no network namespace (${(err as Error).message.split('\n')[0]}); running on the host's network`);
    return false;
  }
  t.teardown(() => {
    // Deleting the namespace deletes the veth pair that lives in it.
    execFileSync('ip', ['netns', 'del', name], { stdio: 'pipe' });
  });
  inside('link', 'set', 'lo', 'up');
  if (veth) {
    inside('link', 'add', 'meet0', 'type', 'veth', 'peer', 'name', 'meet1');
    inside('addr', 'add', `${privatePair.inside}/${privatePair.prefix}`, 'dev', 'meet0');
    inside('addr', 'add', `${privatePair.outside}/${privatePair.prefix}`, 'dev', 'meet1');
    inside('link', 'set', 'meet0', 'up');
    inside('link', 'set', 'meet1', 'up');
  }
  // A subtest: tap waits for it and reports its result; nothing here needs its end.
  void t.spawn(
    'ip',
    ['netns', 'exec', name, process.execPath, ...process.execArgv, fileURLToPath(testFile)],
    {
      env: { ...process.env, [netnsVariable]: name },
    },
    veth
      ? 'inside a network namespace of loopback and a private veth pair'
      : 'inside a loopback-only network namespace',
  );
  return true;
}

export interface BrowserSession {
  readonly browser: Browser;
  newPage(name: string): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  screenshot(page: Page, name: string): Promise<void>;
  /**
   * Declares an error this test provokes on purpose (a refused token, a barred person, a
   * frame the CSP forbids...): console errors, uncaught exceptions and failed responses whose
   * line matches `pattern` no longer fail the test. `why` says why they are expected.
   */
  expectConsoleErrors(pattern: RegExp, why: string): void;
  /** Runs axe-core (WCAG 2 A/AA and best practices) on what the page or frame shows now; a violation fails the test (accessibility.ts). */
  checkAccessibility(where: Page | Frame, label: string): Promise<void>;
}

/** One console error, uncaught exception or failed response seen in the browser. */
interface Fault {
  readonly line: string;
  /** A failed response's address; for a console line, the address it echoes (see below). */
  readonly url?: string;
  readonly echo?: boolean;
}

interface Allowance {
  readonly pattern: RegExp;
  readonly why: string;
  used: number;
}

/**
 * Records what a page should never produce in normal use: console messages of type error
 * (Chromium logs every failed load there too), uncaught exceptions, and responses of 400 or
 * more. Every context of the browser is watched, frames and pop-ups included.
 */
function watchContext(context: BrowserContext, name: string, faults: Fault[]): void {
  context.on('console', (message) => {
    if (message.type() !== 'error') return;
    const at = message.location().url;
    const text = message.text();
    // Chromium repeats every failed load as a console error; the response's own line (with its
    // method) stands for both, so the echo is left out when that line is there.
    const echo = text.startsWith('Failed to load resource: the server responded with a status of');
    faults.push({ line: `${name}: console error: ${text}${at ? ` (${at})` : ''}`, url: at, echo });
  });
  context.on('weberror', (error) => faults.push({ line: `${name}: uncaught: ${String(error.error())}` }));
  context.on('response', (response) => {
    if (response.status() < 400 || !/^https?:/.test(response.url())) return;
    faults.push({
      line: `${name}: ${response.status()} ${response.request().method()} ${response.url()}`,
      url: response.url(),
    });
  });
}

/**
 * Fails the test, when it ends, with every fault no allowance matches. It runs as the test is
 * about to end (tap's onbeforeend, the plugins' extension point that t.emits uses too), where
 * an assertion still belongs to the test; a teardown would come too late for one.
 */
function checkAtEnd(t: Test, faults: readonly Fault[], allowances: readonly Allowance[]): void {
  const base = t.t;
  const before = base.onbeforeend.bind(base);
  base.onbeforeend = () => {
    const unexpected: string[] = [];
    const failedUrls = new Set(faults.filter((f) => !f.echo && f.url).map((f) => f.url));
    for (const fault of faults) {
      if (fault.echo && failedUrls.has(fault.url)) continue;
      const allowance = allowances.find((a) => a.pattern.test(fault.line));
      if (allowance) allowance.used += 1;
      else unexpected.push(fault.line);
    }
    if (unexpected.length > 0) {
      t.fail(
        `the browser logged ${unexpected.length} error(s) or failed request(s) this test does not expect (under found)`,
        {
          found: unexpected,
          hint: 'fix the page, or declare an error the test provokes on purpose with browser.expectConsoleErrors(pattern, why)',
        },
      );
    } else {
      const expected = allowances.reduce((sum, a) => sum + a.used, 0);
      t.pass(
        `the browser logged no error and no failed request${expected > 0 ? ` beyond the ${expected} this test provokes` : ''}`,
      );
    }
    for (const allowance of allowances) {
      if (allowance.used === 0) t.comment(`expected but not seen: ${allowance.pattern} (${allowance.why})`);
    }
    return before();
  };
}

/**
 * One Chromium per test file and set of switches, launched at the first openBrowser and closed
 * when the file's root test ends: a launch costs one to three seconds of two shared cores, and a
 * file opens a browser in every test. What a test must not inherit from another it still gets
 * fresh: its own contexts (cookies, storage, camera), closed when it ends, and its own watch.
 */
const launched = new Map<string, Promise<Browser>>();

function sharedChromium(args: readonly string[]): Promise<Browser> {
  const key = args.join('\n');
  let browser = launched.get(key);
  if (!browser) {
    // Loaded here, not at the top: a file that re-runs itself in a namespace (inLoopbackNamespace)
    // loads its imports twice, and the parent, which only relays the child's TAP, needs no Playwright.
    browser = import('playwright-core').then(({ chromium }) =>
      chromium.launch({ executablePath: chromiumPath, args: [...args] }),
    );
    launched.set(key, browser);
    const closing = browser;
    tap.teardown(async () => (await closing).close());
  }
  return browser;
}

/**
 * Chromium for the test (shared by the file, see sharedChromium); each person gets a context of
 * her own (own cookies, own camera), closed at the test's end. `extraArgs` adds switches (e.g.
 * --ignore-certificate-errors behind a self-signed TLS proxy).
 * Every page the browser opens is watched: a console error, an uncaught exception or a
 * response of 400 or more fails the test at its end unless expectConsoleErrors declared it.
 */
export async function openBrowser(t: Test, extraArgs: readonly string[] = []): Promise<BrowserSession> {
  const shared = await sharedChromium([...chromiumArgs, ...extraArgs]);
  mkdirSync(artifactsDir, { recursive: true });
  const faults: Fault[] = [];
  const allowances: Allowance[] = [];
  checkAtEnd(t, faults, allowances);
  const contexts = new Set<BrowserContext>();
  // A page left open would go on drawing and polling through the next test of the file.
  t.teardown(() => Promise.all([...contexts].map((context) => context.close().catch(() => {}))));
  const newContext = async (options: Parameters<Browser['newContext']>[0], name: string) => {
    const context = await shared.newContext(options);
    // Two browser files run at once (tap's jobs) beside CI's other leg: a loaded machine took
    // 16 s for one click and over 30 s for a page load, so actions and loads get a minute, as
    // the meeting test gave its pages. A limit only: every wait still ends when its condition holds.
    context.setDefaultTimeout(actionTimeoutMs);
    context.setDefaultNavigationTimeout(actionTimeoutMs);
    contexts.add(context);
    context.once('close', () => contexts.delete(context));
    watchContext(context, name, faults);
    // Every document keeps what its live region said (announcements.ts): a poll of the region's
    // current text misses one that the next announcement replaced.
    await keepAnnouncementsIn(context);
    return context;
  };
  // Contexts a test opens itself (browser.newContext) are watched and closed too.
  let unnamed = 0;
  const browser = new Proxy(shared, {
    get(target, property) {
      if (property === 'newContext')
        return (options?: Parameters<Browser['newContext']>[0]) => newContext(options, `context ${(unnamed += 1)}`);
      if (property === 'newPage') {
        return async (options?: Parameters<Browser['newContext']>[0]) =>
          (await newContext(options, `context ${(unnamed += 1)}`)).newPage();
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    browser,
    async newPage(name) {
      const context = await newContext({ permissions: ['camera', 'microphone'] }, name);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(`${name}: ${String(err)}`));
      return { page, context, errors };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: `${artifactsDir}${name}.png`, fullPage: true }).catch(() => {});
    },
    expectConsoleErrors(pattern, why) {
      allowances.push({ pattern, why, used: 0 });
    },
    async checkAccessibility(where, label) {
      await expectNoAxeViolations(t, where, label);
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

/**
 * Drops the page's `speaking` reports to the server (its other messages go as ever): another
 * page's speaking outline of her can then only come from the audio that page receives.
 */
export async function withoutSpeakingReports(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    // The prototype that holds `send` (countConnections may have put a subclass in front of it).
    let proto = WebSocket.prototype;
    while (!Object.prototype.hasOwnProperty.call(proto, 'send')) proto = Object.getPrototypeOf(proto) as WebSocket;
    const send = Object.getOwnPropertyDescriptor(proto, 'send')!.value as (data: unknown) => void;
    proto.send = function (this: WebSocket, data: Parameters<WebSocket['send']>[0]) {
      if (typeof data === 'string' && data.includes('"type":"speaking"')) return;
      send.call(this, data);
    };
  });
}

export function connectionCounts(page: Page): Promise<{ peerConnections: number; webSockets: number }> {
  return page.evaluate(
    () => (window as unknown as { __meetCounts: { peerConnections: number; webSockets: number } }).__meetCounts,
  );
}

/** Sum of a stat over the page's inbound RTP streams of one kind (e.g. framesDecoded of video). */
export function inboundTotal(
  page: Page,
  kind: 'audio' | 'video',
  stat: 'framesDecoded' | 'bytesReceived' | 'packetsReceived',
): Promise<number> {
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
