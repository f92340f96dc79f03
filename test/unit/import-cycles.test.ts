import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeImports } from '../helpers/import-graph';

const root = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

/** Every file-level cycle among the runtime imports of these files, each as its files in order. */
export function importCycles(files: string[]): string[][] {
  const edges = new Map(files.map((f) => [f, runtimeImports(f)]));
  // Tarjan's strongly connected components: a component of more than one file is a cycle.
  let index = 0;
  const idx = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>(), cycles: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index); low.set(v, index++); stack.push(v); on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) !== idx.get(v)) return;
    const scc: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) { on.delete(w); scc.push(w); if (w === v) break; }
    if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(scc.map((f) => relative(root, f)).sort());
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return cycles;
}

describe('imports', () => {
  it('form no file-level cycle in src/ or the dev harness', () => {
    expect(importCycles([...sources(join(root, 'src')), ...sources(join(root, 'harness'))])).toEqual([]);
  });

  it('a cycle is found and named by its files', () => {
    const dir = join(root, 'test/unit/fixtures/import-cycle');
    expect(importCycles(sources(dir))).toEqual([['test/unit/fixtures/import-cycle/a.ts', 'test/unit/fixtures/import-cycle/b.ts']]);
  });
});
