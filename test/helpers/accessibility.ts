import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, Result, RunOptions } from 'axe-core';
import type { Frame, Page } from 'playwright-core';
import type { Test } from 'tap';

/**
 * The rules a screen is held to: WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's
 * best practices (one h1, roles an element may take, landmarks), which the project's standard
 * asks for too.
 */
export const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core on what `where` (a page, or a frame inside one) shows now, and fails the test
 * with one readable line per offending element: rule, impact, selector, what to do.
 *
 * The pages' CSP (script-src 'self') refuses an inline <script>, so addScriptTag cannot bring
 * axe in; an evaluation through the DevTools protocol is not a page script and is not subject
 * to the CSP. The product's policy stays as it is.
 *
 * Frames are checked by calling this on the frame: axe's own frame walk would need axe inside
 * every frame first.
 */
export async function expectNoAxeViolations(
  t: Test,
  where: Page | Frame,
  label: string,
): Promise<AxeResults['violations']> {
  const loaded = await where.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await where.evaluate(axeSource);
  const options: RunOptions = {
    runOnly: { type: 'tag', values: [...axeTags] },
    iframes: false,
    resultTypes: ['violations'],
  };
  const results = await where.evaluate(
    (options) =>
      (window as unknown as { axe: { run(context: Document, options: unknown): Promise<AxeResults> } }).axe.run(
        document,
        options,
      ),
    options,
  );
  const violations = results.violations;
  if (violations.length === 0) {
    t.pass(`${label}: axe-core finds no violation (${axeTags.join(', ')})`);
  } else {
    t.fail(`${label}: axe-core finds ${violations.length} rule(s) violated (under found)`, {
      found: violations.flatMap(describeViolation),
    });
  }
  return violations;
}

function describeViolation(violation: Result): string[] {
  return violation.nodes.map((node) => {
    const target = node.target.map((part) => (Array.isArray(part) ? part.join(' >> ') : String(part))).join(' | ');
    const why = node.failureSummary?.replace(/\s+/g, ' ').trim();
    return `${violation.id} (${violation.impact ?? 'no impact'}) at ${target}: ${violation.help}${why ? `. ${why}` : ''} [${violation.helpUrl}]`;
  });
}
