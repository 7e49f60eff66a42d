// Issue 30 point 6: no import cycle among the modules of src/. A cycle makes load order matter
// (a module may run against the half-initialised exports of the other) and keeps two files from
// being understood, tested or moved one without the other.
import { importsOf, targetOf, type SourceFile } from './layers.js';

/**
 * Static imports and type imports count. A type import is erased by tsc and loads nothing, but
 * it still ties the two files together: neither can be read, moved or tested alone, and the
 * cycles of this tree (issue 30 names three) were mostly closed by one. `import()` does not count:
 * it runs later, once both modules are whole, and is how a layer reaches up on purpose (the CLI
 * loads the daemon lazily).
 */
export function edgesOf(files: readonly SourceFile[]): Map<string, Set<string>> {
  const known = new Set(files.map((f) => f.path));
  const edges = new Map<string, Set<string>>(files.map((f) => [f.path, new Set<string>()]));
  for (const file of files) {
    for (const imp of importsOf(file)) {
      if (imp.kind === 'dynamic') continue;
      const target = targetOf(imp);
      if (target.kind === 'src' && known.has(target.name)) edges.get(file.path)!.add(target.name);
    }
  }
  return edges;
}

/** Each group of modules that import one another (a strongly connected component), as one cycle through all of them. */
export function cyclesOf(files: readonly SourceFile[]): string[][] {
  const edges = edgesOf(files);
  // Tarjan's algorithm: every module in a component of more than one (or importing itself) is on a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges.get(v)!.has(v)) components.push(component);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((c) => walk(c, edges)).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A path from the component's first module (by name) back to itself, read as `a → b → a`. */
function walk(component: string[], edges: Map<string, Set<string>>): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  // Breadth-first from start to any member importing start: the shortest way round.
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of [...(edges.get(v) ?? [])].sort()) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (members.has(w) && !from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
