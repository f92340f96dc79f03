import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const doc = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');

describe('ARCHITECTURE.md is the map of src/', () => {
  it('names every folder of src/ in its table, and only folders that exist', () => {
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const described = [...doc.matchAll(/^\| `src\/([a-z0-9-]+)\/` \|/gm)].map((m) => m[1]!).sort();
    expect(folders.filter((f) => !described.includes(f))).toEqual([]);
    expect(described.filter((f) => !folders.includes(f))).toEqual([]);
  });

  it('puts every folder of src/ in exactly one layer', () => {
    const layerRows = doc.split('## Layers')[1]!.split('## Folders')[0]!;
    const inLayers = [...layerRows.matchAll(/`([a-z0-9-]+)`(?!\.ts)/g)].map((m) => m[1]!);
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    for (const f of folders) expect(inLayers.filter((x) => x === f), f).toHaveLength(1);
  });
});
