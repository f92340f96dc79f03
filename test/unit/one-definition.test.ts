import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const code = (rel: string): string[] =>
  readdirSync(join(root, rel), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? code(`${rel}/${d.name}`) : /\.tsx?$/.test(d.name) ? [`${rel}/${d.name}`] : [],
  );

/** Every `x as Error` (or `<Error>x`, or a union with Error) in this source text, as `file:line`. */
function errorCasts(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const namesError = (t: ts.Node): boolean => (ts.isTypeReferenceNode(t) && t.typeName.getText(sf) === 'Error') || ts.forEachChild(t, namesError) === true;
  const visit = (n: ts.Node): void => {
    if ((ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) && namesError(n.type)) found.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

const sources = () => ['src', 'harness', 'electron', 'renderer', 'scripts'].flatMap(code).map((f) => ({ file: f, text: readFileSync(join(root, f), 'utf8') }));

describe('errors are read, not cast', () => {
  it('no source of the product, the tray, the page, the harness or the scripts casts to Error: errorText() gives the words', () => {
    const casts = sources().flatMap(({ file, text }) => errorCasts(file, text));
    expect(casts).toEqual([]);
  });

  it('finds the casts it is meant to', () => {
    expect(errorCasts('x.ts', 'const a = (e as Error).message;\nconst b = (e as Error | undefined)?.message;\nconst c = (<Error>e).message;\nconst d = e as Err;')).toEqual(['x.ts:1', 'x.ts:2', 'x.ts:3']);
  });
});

describe('time has one shape', () => {
  it('declares `Clock` once (src/core/clock.ts); sleeping and virtual clocks extend it', () => {
    const declared = sources().filter(({ text }) => /^export (interface Clock\b|type Clock\b)/m.test(text) || /^(interface|type) Clock\b/m.test(text));
    expect(declared.map((d) => d.file)).toEqual(['src/core/clock.ts']);
  });
});
