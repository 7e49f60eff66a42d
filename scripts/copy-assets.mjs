// tsc only emits .js: the SQL migrations and the web client's static files ship beside the compiled code.
// A file is written only when its bytes differ from the copy's, so an unchanged tree keeps its
// copies (and their times) as they are and the build after it has nothing to do.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @param {string} from
 * @param {string} to
 * @returns {number} files written
 */
function mirror(from, to) {
  let written = 0;
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      written += mirror(source, target);
    } else if (!same(source, target)) {
      copyFileSync(source, target);
      written += 1;
    }
  }
  return written;
}

/**
 * @param {string} source
 * @param {string} target
 */
function same(source, target) {
  try {
    return statSync(target).size === statSync(source).size && readFileSync(target).equals(readFileSync(source));
  } catch {
    return false;
  }
}

const written =
  mirror('src/store/migrations', 'dist/store/migrations') +
  mirror('src/web/static', 'dist/web/static') +
  mirror('src/compat/store/migrations', 'dist/compat/store/migrations');
if (written > 0) console.log(`assets: ${written} file(s) copied into dist`);
// The build's date: `meetctl doctor` knows a clock reading earlier than it is behind (offline
// evidence, no NTP needed). Written once per dist/, so an unchanged tree's build writes nothing;
// an older date only makes that evidence weaker, never wrong.
if (!existsSync('dist/build-info.json'))
  writeFileSync('dist/build-info.json', `${JSON.stringify({ builtAt: new Date().toISOString() })}\n`);
