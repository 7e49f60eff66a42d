// What a page's live region said, kept: the region holds one text at a time, and a later
// announcement (the row's own "Admitted", the next person's arrival) can replace one before a
// poll of its text sees it.
import type { Page } from 'playwright-core';

/** From now on, every text the page's `#announcer` takes is kept in the page (until it navigates). */
export async function keepAnnouncements(page: Page): Promise<void> {
  await page.evaluate(() => {
    const kept = window as unknown as { said?: string[] };
    if (kept.said) return;
    const said: string[] = [];
    kept.said = said;
    const region = document.getElementById('announcer');
    if (!region) throw new Error('the page has no #announcer');
    new MutationObserver(() => {
      if (region.textContent) said.push(region.textContent);
    }).observe(region, { childList: true, characterData: true, subtree: true });
  });
}

/** Waits until the live region said `text` (within one of its announcements) since keepAnnouncements. */
export async function untilSaid(page: Page, text: string, ms = 10_000): Promise<void> {
  await page.waitForFunction(
    (wanted) => ((window as unknown as { said?: string[] }).said ?? []).some((s) => s.includes(wanted)),
    text,
    { timeout: ms, polling: 100 },
  );
}

/** Every text the live region took since keepAnnouncements, in order. */
export async function saidSoFar(page: Page): Promise<string[]> {
  return page.evaluate(() => [...((window as unknown as { said?: string[] }).said ?? [])]);
}
