/**
 * `npm run runtime:manifest`: writes `src/adapters/agent/runtime-manifest.json` from the project's agent
 * files, `opencode.json` and the shipped change policy (`policy.yaml` and its records files) as they
 * are now, and what a runtime started on exactly those files reports (its agents' permissions, plugins, instructions, MCP servers). Run it after an intended
 * change to one of them; the relay refuses runs while they differ from the committed manifest, and
 * a unit test fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { demoRuntimeHome } from './runtime-home';
import { createAgentClient } from './client';
import { startEmbeddedRuntime } from './embedded';
import { buildManifest } from './integrity';
import { policyManifest } from './policy-files';

const projectDir = path.resolve(import.meta.dirname, '../../..');
const target = path.join(import.meta.dirname, 'runtime-manifest.json');
buildManifest(projectDir);
policyManifest(projectDir);
// A runtime of its own, away from the user's opencode folders and environment (as the relay starts it).
const home = mkdtempSync(path.join(tmpdir(), 'runtime-manifest-'));
const runtime = await startEmbeddedRuntime({
  cwd: projectDir,
  logger: pino({ level: 'silent' }),
  env: { ...demoRuntimeHome(home, projectDir), RELAY_TOOLS_URL: 'http://127.0.0.1:9/mcp', RELAY_DEVICE_TOOLS_URL: 'http://127.0.0.1:9/device-mcp', RELAY_TOOLS_TOKEN: 'manifest' },
});
const client = createAgentClient(runtime.endpoint);
try {
  const { runtime: reported, ...files } = buildManifest(projectDir, await client.reportedConfig());
  const manifest = { ...files, policy: policyManifest(projectDir), ...(reported ? { runtime: reported } : {}) };
  writeFileSync(target, `${JSON.stringify(manifest, null, 2)}\n`);
  const agents = Object.keys(manifest.runtime?.agents ?? {});
  process.stdout.write(
    `${path.relative(projectDir, target)}: ${Object.keys(manifest.files).length} files, ${Object.keys(manifest.policy).length} policy files, ${agents.length} agents as the runtime reports them\n` +
      `${Object.keys(manifest.files).map((f) => `  ${f}`).join('\n')}\n`,
  );
} finally {
  await client.close();
  await runtime.stop();
  rmSync(home, { recursive: true, force: true });
}
