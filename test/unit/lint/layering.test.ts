import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/relay-process';

/** What the linter says of one import line placed in a domain file (the file need not exist). */
async function verdict(file: string, from: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: repoRoot });
  const [result] = await eslint.lintText(`import '${from}';\n`, { filePath: `${repoRoot}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering: the domain imports ports, never adapters', () => {
  it('refuses a chat adapter, a device server, a store backend, the team, the relay and an alert sender in the domain', async () => {
    const refused = [
      ['src/approvals/probe.ts', '../messaging/webex-channel'],
      ['src/approvals/probe.ts', '../slack/slack-channel'],
      ['src/tools/probe.ts', '../devices/server'],
      ['src/incidents/probe.ts', '../store-pg/pg-store'],
      ['src/incidents/probe.ts', '../team/coordinator'],
      ['src/tools/probe.ts', '../relay/app'],
      ['src/incidents/probe.ts', '../alert/splunk'],
      ['src/incidents/probe.ts', '../alert/alertmanager'],
    ] as const;
    for (const [file, from] of refused) expect(await verdict(file, from), `${file} ← ${from}`).toHaveLength(1);
  });

  it('lets the domain use the ports and the shared contracts, and lets adapters use the domain', async () => {
    const allowed = [
      ['src/incidents/probe.ts', '../alert/source'],
      ['src/tools/probe.ts', '../devices/errors'],
      ['src/approvals/probe.ts', './operator-channel'],
      ['src/slack/probe.ts', '../approvals/operator-channel'],
      ['src/relay/probe.ts', '../store-pg/pg-store'],
    ] as const;
    for (const [file, from] of allowed) expect(await verdict(file, from), `${file} ← ${from}`).toEqual([]);
  });
});
