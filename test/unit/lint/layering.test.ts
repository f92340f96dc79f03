import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/relay-process';

/** What the layering rule says of one import line placed in a file (the file need not exist). */
async function verdict(file: string, from: string, kind: 'value' | 'type' = 'value'): Promise<string[]> {
  // The probe files exist in no TypeScript project, and the layer rule needs no types.
  const eslint = new ESLint({ cwd: repoRoot, overrideConfig: tseslint.configs.disableTypeChecked });
  const code = kind === 'type' ? `import type { X } from '${from}';\nexport type Y = X;\n` : `import '${from}';\n`;
  const [result] = await eslint.lintText(code, { filePath: `${repoRoot}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'house/layers').map((m) => m.message);
}

describe('layering: an allow-list per layer (ARCHITECTURE.md)', () => {
  it('refuses imports up the layers, of the dev harness from src/, and of the tray from src/', async () => {
    const refused = [
      ['src/core/approvals/probe.ts', '../../adapters/channels/webex/webex-channel'],
      ['src/core/approvals/probe.ts', '../../adapters/channels/slack/slack-channel'],
      ['src/core/changes/probe.ts', '../../adapters/devices/server'],
      ['src/core/incidents/probe.ts', '../../adapters/store-pg/pg-store'],
      ['src/core/incidents/probe.ts', '../../adapters/team/coordinator'],
      ['src/core/changes/probe.ts', '../../relay/app'],
      ['src/core/incidents/probe.ts', '../../adapters/alert-sources/splunk'],
      ['src/runbooks/probe.ts', '../core/incidents/model'],
      ['src/adapters/slack/probe.ts', '../../relay/app'],
      ['src/relay/probe.ts', '../../harness/ios-lab/lab'],
      ['src/adapters/devices/probe.ts', '../../../harness/frr-lab/lab'],
      ['src/relay/probe.ts', '../../electron/main'],
      ['src/config/probe.ts', '../core/clock'],
    ] as const;
    for (const [file, from] of refused) expect(await verdict(file, from), `${file} ← ${from}`).toHaveLength(1);
    // A type is a dependency on its owner too.
    expect(await verdict('src/core/incidents/probe.ts', '../../adapters/store-pg/pg-store', 'type')).toHaveLength(1);
  });

  it('lets each layer import itself and the layers below it', async () => {
    const allowed = [
      ['src/core/incidents/probe.ts', '../approvals/operator-channel'],
      ['src/core/incidents/probe.ts', '../../runbooks/schema-raw'],
      ['src/core/incidents/probe.ts', '../../config/schema'],
      ['src/adapters/channels/slack/probe.ts', '../../../core/approvals/operator-channel'],
      ['src/relay/probe.ts', '../adapters/store-pg/pg-store'],
      ['harness/demo/probe.ts', '../../src/relay/create-relay'],
    ] as const;
    for (const [file, from] of allowed) expect(await verdict(file, from), `${file} ← ${from}`).toEqual([]);
  });
});
