import { readFileSync } from 'node:fs';
import t from 'tap';

// WCAG 2.2.2 (Pause, Stop, Hide): motion that starts by itself and lasts more than 5 s needs a
// way to stop it. The pages offer none, so every animation must end by itself within 5 s; an
// endless one also repaints the page every frame for as long as the screen is open.
const css = readFileSync(new URL('../../../src/web/static/styles.css', import.meta.url), 'utf8').replace(
  /\/\*[\s\S]*?\*\//g,
  '',
);

/** Every `animation:` shorthand of the stylesheet, with the selector it sits in. */
function animations(text: string): { rule: string; value: string }[] {
  const found: { rule: string; value: string }[] = [];
  for (const match of text.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    for (const declaration of match[2]!.split(';')) {
      const [property, ...rest] = declaration.split(':');
      if (property?.trim() === 'animation') found.push({ rule: match[1]!.trim(), value: rest.join(':').trim() });
    }
  }
  return found;
}

/** Seconds an `animation` shorthand runs: its first time value times its iteration count. */
function runsFor(value: string): number {
  if (value === 'none') return 0;
  const time = /(^|\s)(\d*\.?\d+)(m?s)(\s|$)/.exec(value);
  const seconds = time ? Number(time[2]) / (time[3] === 'ms' ? 1000 : 1) : 0;
  if (/\binfinite\b/.test(value)) return Number.POSITIVE_INFINITY;
  const count = /(^|\s)(\d*\.?\d+)(\s|$)/.exec(value.replace(/(\d*\.?\d+)m?s/g, ''));
  return seconds * (count ? Number(count[2]) : 1);
}

t.test('every animation of the pages ends by itself within 5 seconds', async (t) => {
  const found = animations(css).filter((a) => a.value !== 'none');
  t.ok(found.length >= 2, `the stylesheet's animations are found (${found.length})`);
  for (const { rule, value } of found) t.ok(runsFor(value) <= 5, `${rule}: "${value}" runs ${runsFor(value)} s`);
});

t.test('the reading of a shorthand', async (t) => {
  t.equal(runsFor('live-pulse 1.6s ease-out infinite'), Number.POSITIVE_INFINITY);
  t.equal(runsFor('live-pulse 1.6s ease-out 3'), 1.6 * 3);
  t.equal(runsFor('pop .3s ease-out'), 0.3);
  t.equal(runsFor('spin 500ms linear 4'), 2);
  t.equal(runsFor('none'), 0);
});
