import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reachedFrom } from '../helpers/import-graph';

const root = resolve(import.meta.dirname, '../..');

/** The files of the dev harness or the tests that the entry points load, relative to the project. */
function devFilesLoadedBy(entries: string[]): string[] {
  return [...reachedFrom(entries.map((e) => resolve(root, e)))]
    .map((f) => relative(root, f))
    .filter((f) => f.startsWith('harness/') || f.startsWith('test/'))
    .sort();
}

describe('production loads no dev code', () => {
  it('neither the headless relay nor the tray reaches a file of harness/ or test/ through its imports', () => {
    const reached = reachedFrom([resolve(root, 'src/relay/main.ts'), resolve(root, 'electron/main.ts')]);
    // The walk really went through the product: the device guard and the device server are in it.
    expect([...reached].map((f) => relative(root, f))).toEqual(expect.arrayContaining(['src/adapters/device-tools/device-guard.ts', 'src/adapters/devices/server.ts']));
    expect(devFilesLoadedBy(['src/relay/main.ts', 'electron/main.ts'])).toEqual([]);
  });

  it('a harness file two imports away is found and named', () => {
    expect(devFilesLoadedBy(['test/unit/fixtures/import-graph/entry.ts'])).toEqual(['harness/ios-lab/inventory.ts', 'test/unit/fixtures/import-graph/entry.ts', 'test/unit/fixtures/import-graph/middle.ts']);
  });
});
