import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/** The lint config is the guard that keeps Electron out of src/ and raw IPC in two files. */
// The probe files exist in no TypeScript project, and these rules need no types.
const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: tseslint.configs.disableTypeChecked });
const rulesHit = async (filePath: string, code: string) =>
  (await eslint.lintText(code, { filePath }))[0]!.messages.map((m) => `${m.ruleId}: ${m.message}`);

describe('lint rules', () => {
  it('ban any electron import in src/', async () => {
    expect(await rulesHit('src/relay/oops.ts', "import { app } from 'electron';\nexport const x = app;\n")).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*src\/ is plain Node/),
    ]);
    expect(await rulesHit('src/relay/oops.ts', "export const e = require('electron');\n")).toContainEqual(expect.stringMatching(/^no-restricted-syntax: .*src\/ is plain Node/));
    expect(await rulesHit('src/relay/oops.ts', "export const e = () => import('electron');\n")).toContainEqual(expect.stringMatching(/^no-restricted-syntax: .*src\/ is plain Node/));
  });

  it('ban raw ipcMain / ipcRenderer outside the two wrappers, by import or by member access', async () => {
    expect(await rulesHit('electron/tray.ts', "import { ipcMain } from 'electron';\nexport const x = ipcMain;\n")).toEqual([
      expect.stringMatching(/^no-restricted-imports: .*typed wrappers/),
    ]);
    expect(await rulesHit('renderer/app/x.ts', "import * as e from 'electron';\nexport const x = e.ipcRenderer;\n")).toContainEqual(
      expect.stringMatching(/^no-restricted-syntax: .*typed wrappers/),
    );
    expect(await rulesHit('electron/x.ts', "const { ipcMain } = require('electron');\nexport const x = ipcMain;\n")).toContainEqual(
      expect.stringMatching(/^no-restricted-syntax: .*typed wrappers/),
    );
    expect(await rulesHit('electron/ipc/main-ipc.ts', "import { ipcMain } from 'electron';\nexport const x = ipcMain;\n")).toEqual([]);
    expect(await rulesHit('electron/ipc/preload-ipc.ts', "import { ipcRenderer } from 'electron';\nexport const x = ipcRenderer;\n")).toEqual([]);
  });

  it('ban default exports', async () => {
    expect(await rulesHit('electron/x.ts', 'export default 1;\n')).toEqual([expect.stringMatching(/^no-restricted-exports: /)]);
  });
});
