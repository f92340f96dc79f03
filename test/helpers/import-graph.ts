import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// Type-only imports are erased (verbatimModuleSyntax keeps every other import, even `{ type X }`).
const IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\s+from\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function resolveSpec(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')].find((p) => existsSync(p) && statSync(p).isFile());
}

/** The files a file loads at run time by a relative static import (or `import('…')` of a literal), resolved. */
export function runtimeImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap((m) => resolveSpec(file, (m[1] ?? m[2])!) ?? []);
}

/** Every file reached from the entry points through runtime imports, the entry points included. */
export function reachedFrom(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
    if (seen.has(f)) continue;
    seen.add(f);
    queue.push(...runtimeImports(f));
  }
  return seen;
}
