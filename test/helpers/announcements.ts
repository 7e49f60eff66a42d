// What a page's live region said, kept: the region holds one text at a time, and a later
// announcement (the row's own "Admitted", the next person's arrival) can replace one before a
// poll of its text sees it. A test therefore asks what `#announcer` said, never what it holds now.
//
// openBrowser (browser.ts) installs keepSaid with context.addInitScript on every context, so
// every document (each navigation, each iframe) keeps its own list from its first script on.
import type { BrowserContext, Frame, FrameLocator, Page } from 'playwright-core';

/** A page or an iframe (compat-rooms reads its meeting through `frame.locator('#announcer')`). */
export type Where = Page | Frame;

/** What one announcement must be: a text it contains (or equals, with `exact`), or a pattern it matches. */
export type Wanted = string | RegExp;

export interface SaidOptions {
  /** Only announcements made after this mark count (a saidCount taken before the action). */
  readonly since?: number;
  /** The announcement must equal the text, not only contain it. */
  readonly exact?: boolean;
  /** How long to wait; 10 s unless told. */
  readonly ms?: number;
}

interface Kept {
  __meetSaid?: string[];
}

/**
 * The init script: from the document's first script on, every non-empty text `#announcer`
 * takes is pushed onto the document's own list. The region is in the static HTML but not yet
 * parsed when init scripts run, so the document is watched until it appears. The page's
 * announce() clears the region and sets the text a task later, so a repeated message is kept twice.
 */
function keepSaid(): void {
  const kept = window as unknown as Kept;
  if (kept.__meetSaid) return;
  const said: string[] = [];
  kept.__meetSaid = said;
  let watching = false;
  const watch = (): boolean => {
    if (watching) return true;
    const region = document.getElementById('announcer');
    if (!region) return false;
    watching = true;
    if (region.textContent) said.push(region.textContent);
    new MutationObserver(() => {
      if (region.textContent) said.push(region.textContent);
    }).observe(region, { childList: true, characterData: true, subtree: true });
    return true;
  };
  if (watch()) return;
  const waiting = new MutationObserver(() => {
    if (watch()) waiting.disconnect();
  });
  waiting.observe(document, { childList: true, subtree: true });
  // A document without the region once parsed (a host page, the identity provider's) keeps nothing.
  document.addEventListener(
    'DOMContentLoaded',
    () => {
      watch();
      waiting.disconnect();
    },
    { once: true },
  );
}

/** Keeps the announcements of every document the context loads from now on (openBrowser does it for all). */
export async function keepAnnouncementsIn(context: BrowserContext): Promise<void> {
  await context.addInitScript(keepSaid);
}

/** The document behind a frame locator (`page.frameLocator('iframe')`), whose kept announcements a test reads. */
export async function frameOf(frame: FrameLocator): Promise<Frame> {
  const document = await (await frame.owner().elementHandle())?.contentFrame();
  if (!document) throw new Error('the frame locator has no loaded frame');
  return document;
}

/** How many announcements the current document made so far: a mark for `since`. */
export function saidCount(where: Where): Promise<number> {
  return where.evaluate(() => (window as unknown as Kept).__meetSaid?.length ?? 0);
}

/** Every text the live region took in the current document (after the mark `since`), in order. */
export function saidSoFar(where: Where, since = 0): Promise<string[]> {
  return where.evaluate((from) => ((window as unknown as Kept).__meetSaid ?? []).slice(from), since);
}

/**
 * Waits until one announcement of the current document (after `since`) contains, equals
 * (`exact`) or matches `wanted`, and returns it. A bare number as third argument is the
 * wait in milliseconds.
 */
export async function untilSaid(where: Where, wanted: Wanted, options: number | SaidOptions = {}): Promise<string> {
  const { since = 0, exact = false, ms = 10_000 } = typeof options === 'number' ? { ms: options } : options;
  const spec =
    typeof wanted === 'string'
      ? { text: wanted, source: '', flags: '', exact, since }
      : { text: '', source: wanted.source, flags: wanted.flags, exact: false, since };
  try {
    const found = await where.waitForFunction(
      (s) => {
        const said = ((window as unknown as Kept).__meetSaid ?? []).slice(s.since);
        const pattern = s.source ? new RegExp(s.source, s.flags) : undefined;
        return (
          said.find((text) => (pattern ? pattern.test(text) : s.exact ? text === s.text : text.includes(s.text))) ??
          false
        );
      },
      spec,
      { timeout: ms, polling: 100 },
    );
    return (await found.jsonValue()) as string;
  } catch (err) {
    // Say what was said instead: a failing test names the announcements it did get.
    const got = await saidSoFar(where, since).catch(() => ['(the page is gone)']);
    throw new Error(
      `not announced within ${ms} ms: ${exact ? 'exactly ' : ''}${String(wanted)}; said since mark ${since}: ${JSON.stringify(got)} (${(err as Error).message.split('\n')[0]})`,
    );
  }
}
