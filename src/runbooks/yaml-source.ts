import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';

export type PathSegment = string | number;

/** A YAML file kept with its positions so any path can be pointed at by line and column. */
export interface YamlSource {
  file: string;
  data: unknown;
  /** Syntax errors of the YAML itself, already positioned. */
  syntaxErrors: { line: number; column: number; message: string }[];
  locate(path: readonly PathSegment[]): { line: number; column: number };
}

/**
 * `lineOffset` shifts reported lines, for YAML embedded in another file (front matter
 * of RG.md starts on line 2).
 */
export function parseYamlSource(text: string, file: string, lineOffset = 0): YamlSource {
  const counter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const pos = (offset: number) => {
    const p = counter.linePos(offset);
    return { line: Math.max(1, p.line) + lineOffset, column: Math.max(1, p.col) };
  };
  const syntaxErrors = doc.errors.map((e) => ({ ...pos(e.pos[0]), message: e.message.split('\n')[0]! }));

  const locate = (path: readonly PathSegment[]) => {
    let node: unknown = doc.contents;
    let at: number = doc.contents?.range?.[0] ?? 0;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
        if (!pair) break;
        const keyStart = (pair.key as Node | null)?.range?.[0];
        const value = pair.value as Node | null;
        // Point at the key for collections (the line that names them), at the value for scalars.
        at = isScalar(value) ? (value.range?.[0] ?? keyStart ?? at) : (keyStart ?? at);
        node = value;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg] as Node | undefined;
        if (!item) break;
        at = item.range?.[0] ?? at;
        node = item;
      } else {
        break;
      }
    }
    return pos(at);
  };

  return { file, data: doc.errors.length ? undefined : doc.toJS(), syntaxErrors, locate };
}
