import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createAgentClient } from '../../src/adapters/agent/client';
import { SHIPPED_MANIFEST } from '../../src/adapters/agent/integrity';
import { MANAGED_CONFIG_ENV } from '../../src/adapters/agent/managed-config';
import { compareRuntimeConfig } from '../../src/adapters/agent/runtime-config';
import { startHeadlessRelay } from '../../src/relay/start-headless';
import { scriptedProviderConfig, startScriptedModel, type ScriptedModel } from '../fakes/scripted-model';
import { startOpencode } from '../helpers/opencode';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';

/**
 * opencode's managed configuration (/etc/opencode on Linux) is loaded over everything else by any
 * opencode that reads it. The tests never write the real folder (other runtimes on this machine would
 * load it): opencode takes the folder from OPENCODE_TEST_MANAGED_CONFIG_DIR, so a temp folder stands in
 * for it, and the first test shows opencode really loads what is there. Real opencode, scripted model.
 */
let model: ScriptedModel;
beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => model?.stop());

const shipped = SHIPPED_MANIFEST.runtime!;
const health = async (url: string) => (await (await request(`${url}/health`)).body.json()) as { warnings: string[] };

/** A managed folder whose opencode.json gives fault-remediation `bash`. */
function managedFolder(): { dir: string; file: string } {
  const dir = tempDir('opencode-managed-');
  const file = path.join(dir, 'opencode.json');
  writeFileSync(file, JSON.stringify({ agent: { 'fault-remediation': { permission: { bash: 'allow' } } } }));
  return { dir, file };
}

describe("opencode's managed configuration folder (real opencode)", () => {
  it('an opencode reading it gives fault-remediation bash; a relay on such an external runtime names the file on /health and refuses runs', async () => {
    const managed = managedFolder();
    const runtime = await startOpencode({ configContent: scriptedProviderConfig(model.baseURL), env: { [MANAGED_CONFIG_ENV]: managed.dir } });
    onTestFinished(() => runtime.stop());
    const client = createAgentClient(runtime.endpoint);
    onTestFinished(() => client.close());
    // What a file in /etc/opencode does to a runtime that reads it.
    expect(compareRuntimeConfig(shipped, await client.reportedConfig())).toContainEqual({ subject: 'agent fault-remediation', why: 'has permission rules the relay does not ship: bash * allow' });

    const dataDir = tempDir('managed-config-external-');
    const relay = await startHeadlessRelay({
      env: {
        AGENT_URL: runtime.endpoint.url,
        AGENT_SERVER_USERNAME: runtime.endpoint.username,
        AGENT_SERVER_PASSWORD: runtime.endpoint.password,
        RELAY_DATA_DIR: dataDir,
        RELAY_LOG_DIR: path.join(dataDir, 'logs'),
        WEBHOOK_SECRET: 'splunk-secret',
        AGENT_SPARE_SESSION: 'off',
      },
      opencodeManagedDir: managed.dir,
      logger: silent,
      port: 0,
    });
    onTestFinished(() => relay.stop());
    const { warnings } = await health(relay.url);
    expect(warnings).toContainEqual(expect.stringMatching(new RegExp(`^opencode's managed configuration ${managed.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} exists on this machine: an opencode runtime started here without the relay`)));
    expect(warnings).toContainEqual(expect.stringMatching(/^Runs are refused: the agent runtime's configuration is not as shipped: agent fault-remediation has permission rules the relay does not ship: bash \* allow/));
  }, 300_000);

  it('the embedded runtime is pointed at an empty folder of its own, whatever the environment names: it runs as shipped', async () => {
    const managed = managedFolder();
    // As if the shell that started the relay pointed opencode at a managed folder (or opencode defaulted to /etc/opencode).
    process.env[MANAGED_CONFIG_ENV] = managed.dir;
    onTestFinished(() => void delete process.env[MANAGED_CONFIG_ENV]);
    const dataDir = tempDir('managed-config-embedded-');
    const relay = await startHeadlessRelay({
      env: { RELAY_DATA_DIR: dataDir, RELAY_LOG_DIR: path.join(dataDir, 'logs'), WEBHOOK_SECRET: 'splunk-secret', AGENT_SPARE_SESSION: 'off' },
      runtimeEnv: { OPENCODE_CONFIG_CONTENT: JSON.stringify(scriptedProviderConfig(model.baseURL)) },
      opencodeManagedDir: managed.dir,
      logger: silent,
      port: 0,
    });
    onTestFinished(() => relay.stop());
    const pid = relay.embedded!.pid()!;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`${MANAGED_CONFIG_ENV}=${path.join(dataDir, 'runtime-home', 'managed-config')}`);
    expect(environ.filter((e) => e.startsWith(`${MANAGED_CONFIG_ENV}=`))).toHaveLength(1);
    const { warnings } = await health(relay.url);
    expect(warnings.filter((w) => w.startsWith('Runs are') || w.startsWith("opencode's managed"))).toEqual([]);
  }, 300_000);
});
