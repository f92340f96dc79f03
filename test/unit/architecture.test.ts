import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ALLOWED } from '../../eslint-rules/layers.js';

const root = resolve(import.meta.dirname, '../..');
const doc = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
const dirs = (rel: string): string[] => readdirSync(join(root, rel), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `${rel}/${d.name}`);

/** The folders the map must name: each layer's concerns, each channel, each part of the dev harness. */
function foldersToDescribe(): string[] {
  const layers = dirs('src');
  const concerns = layers.filter((l) => l !== 'src/config').flatMap(dirs);
  const channels = concerns.filter((c) => c === 'src/adapters/channels').flatMap(dirs);
  return [...layers, ...concerns.filter((c) => c !== 'src/adapters/channels'), ...channels, ...dirs('harness')].map((d) => `${d}/`).sort();
}

describe('ARCHITECTURE.md is the map of the tree', () => {
  it('names every folder of src/ and harness/ in its tables, and only folders that exist', () => {
    const folders = foldersToDescribe();
    const described = [...doc.matchAll(/^\| `((?:src|harness)\/[a-z0-9/-]+\/)` \|/gm)].map((m) => m[1]!).sort();
    expect(folders.filter((f) => !described.includes(f))).toEqual([]);
    expect(described.filter((f) => !existsSync(join(root, f)))).toEqual([]);
  });

  it('gives every layer folder of src/ one row in the layers table, as the lint rule knows them', () => {
    const layerRows = doc.split('## Layers')[1]!.split('## Folders')[0]!;
    for (const layer of dirs('src')) expect(layerRows.match(new RegExp(`\\| \`${layer}/\` \\|`, 'g')), layer).toHaveLength(1);
    const lintLayers = Object.keys(ALLOWED);
    expect(lintLayers).toEqual(expect.arrayContaining(['core', 'adapters', 'runbooks', 'relay', 'config', 'harness']));
  });
});

describe('files stay small', () => {
  const code = (rel: string): string[] =>
    readdirSync(join(root, rel), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? code(`${rel}/${d.name}`) : /\.tsx?$/.test(d.name) ? [`${rel}/${d.name}`] : [],
    );
  it('no source file of the product, the tray, the harness or the scripts is over 300 lines', () => {
    const long = ['src', 'harness', 'electron', 'renderer', 'scripts']
      .flatMap(code)
      .map((f) => [f, readFileSync(join(root, f), 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > 300);
    expect(long).toEqual([]);
  });
});

/** Every function in this source text (declaration, arrow, function expression, method, accessor) longer than `max` lines. */
function longFunctions(file: string, text: string, max: number): { file: string; name: string; lines: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const line = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line;
  const found: { file: string; name: string; lines: number }[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const lines = line(n.end) - line(n.getStart(sf)) + 1;
      const owner = n.parent && (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent)) ? n.parent.name : undefined;
      const name = (n.name ?? owner)?.getText(sf) ?? '(anonymous)';
      if (lines > max) found.push({ file, name, lines });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('functions stay small', () => {
  const code = (rel: string): string[] =>
    readdirSync(join(root, rel), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? code(`${rel}/${d.name}`) : /\.tsx?$/.test(d.name) ? [`${rel}/${d.name}`] : [],
    );
  const long = ['src', 'harness', 'electron', 'renderer', 'scripts']
    .flatMap(code)
    .flatMap((f) => longFunctions(f, readFileSync(join(root, f), 'utf8'), 120))
    .map((f) => `${f.file} ${f.name}`);

  it('no function of the product, the tray, the harness or the scripts is over 120 lines', () => {
    expect(long).toEqual([]);
  });

  it('finds a long function of any form and names it', () => {
    const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `export function declared() {\n${body(119)}\n}`,
      `export const arrow = () => {\n${body(119)}\n};`,
      `export const expressed = function () {\n${body(118)}\n};`,
      `class Held {\n  method() {\n${body(119)}\n  }\n}`,
      `export function outer() {\n  const inner = () => {\n${body(2)}\n  };\n}`,
    ].join('\n');
    expect(longFunctions('fixture.ts', text, 120).map((f) => [f.name, f.lines])).toEqual([
      ['declared', 121],
      ['arrow', 121],
      ['method', 121],
    ]);
  });
});
