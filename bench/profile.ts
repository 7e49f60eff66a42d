/**
 * Where each scenario's server time went: reads bench/results.json and the CPU profiles of a
 * `npm run bench -- --cpu-prof` run (bench/profiles/<server>.cpuprofile) and prints, for every
 * scenario, the functions with the most self time and the project functions with the most
 * inclusive time inside its measured window.
 *
 *   node bench/dist/profile.js [bench/results.json] [bench/profiles] [--top 15] [--only poll-10k,info-1000t]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './lib/servers.js';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}
interface Results {
  readonly measurements: readonly {
    readonly id: string;
    readonly label: string;
    readonly server: string;
    readonly windowMs: readonly [number, number];
  }[];
  readonly servers: readonly {
    readonly name: string;
    readonly spawnedAtMs: number;
    readonly exitedAtMs: number | null;
  }[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '15' }, only: { type: 'string', default: '' } },
});
const resultsFile = positionals[0] ?? join(repoRoot, 'bench', 'results.json');
const profileDir = positionals[1] ?? join(repoRoot, 'bench', 'profiles');
const top = Number(values.top);
const only = new Set(values.only.split(',').filter(Boolean));

function frameName(frame: CallFrame): string {
  const url = frame.url
    .replace(/^file:\/\//, '')
    .replace(repoRoot, '')
    .replace(/^.*\/node_modules\//, 'node_modules/');
  return `${frame.functionName || '(anonymous)'} ${url ? `${url}:${frame.lineNumber + 1}` : ''}`.trim();
}

function analyse(profile: CpuProfile, fromUs: number, toUs: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) continue;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const leaf = byId.get(profile.samples[i]!)!;
    const leafName = frameName(leaf.callFrame);
    total += dt;
    if (leafName === '(idle)') {
      idle += dt;
      continue;
    }
    self.set(leafName, (self.get(leafName) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (!frame.url.includes('/dist/')) continue;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    }
  }
  return { total, idle, self, inclusive };
}

function print(title: string, map: Map<string, number>, busy: number): void {
  console.log(`  ${title}`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`    ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}`);
  }
}

const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as Results;
const profiles = new Map<string, CpuProfile>();
for (const m of results.measurements) {
  if (only.size > 0 && !only.has(m.id)) continue;
  const server = results.servers.find((s) => s.name === m.server);
  const file = join(profileDir, `${m.server}.cpuprofile`);
  if (!server || server.exitedAtMs === null || !existsSync(file)) continue;
  if (!profiles.has(file)) profiles.set(file, JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const profile = profiles.get(file)!;
  // The profile spans the process's life: line its clock up with spawn and exit.
  const scale = (profile.endTime - profile.startTime) / (server.exitedAtMs - server.spawnedAtMs);
  const at = (ms: number) => profile.startTime + (ms - server.spawnedAtMs) * scale;
  const { total, idle, self, inclusive } = analyse(profile, at(m.windowMs[0]), at(m.windowMs[1]));
  const busy = total - idle;
  console.log(
    `\n${m.label} [${m.id}] — ${m.server}: ${(busy / 1e6).toFixed(2)} s busy of ${(total / 1e6).toFixed(2)} s sampled (% of busy time)`,
  );
  print('self time', self, busy);
  print('inclusive, project code (dist/)', inclusive, busy);
}
