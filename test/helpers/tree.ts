import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every entry under `root` with its mode and bytes (files) — two snapshots are equal when nothing was created, changed or removed. */
export function snapshot(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      const mode = (stat.mode & 0o777).toString(8);
      if (stat.isDirectory()) {
        entries[`${relative(root, path)}/`] = mode;
        walk(path);
      } else {
        entries[relative(root, path)] = `${mode} ${stat.mtimeMs} ${readFileSync(path).toString('base64')}`;
      }
    }
  };
  walk(root);
  return entries;
}
