import { describe, expect, it } from 'vitest';
import { SHIPPED_MANIFEST } from '../../../src/adapters/agent/integrity';
import { compareRuntimeConfig, describeConfigDifferences, reportedAgentSchema, reportedConfigSchema, runtimeConfigShape } from '../../../src/adapters/agent/runtime-config';
import { embeddedRuntimeEnv } from '../../../src/adapters/agent/runtime-env';
import { externalRuntimeManagedWarnings, MANAGED_CONFIG_ENV, systemManagedConfigDir } from '../../../src/adapters/agent/managed-config';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../../src/config/load';
import { shippedRuntimeAnswers } from '../../helpers/shipped-runtime';
import { tempDir } from '../../helpers/temp-dir';

const shipped = SHIPPED_MANIFEST.runtime!;
const shapeOf = (answers: ReturnType<typeof shippedRuntimeAnswers>) =>
  runtimeConfigShape(answers.agents.map((a) => reportedAgentSchema.parse(a)), reportedConfigSchema.parse(answers.config));

describe('the runtime configuration against the shipped shape', () => {
  it('the manifest holds every shipped agent as a clean runtime reports it, and a stub built from it reads as shipped', () => {
    expect(Object.keys(shipped.agents)).toEqual(expect.arrayContaining(['network-troubleshooter', 'fault-remediation', 'msg-notify', 'build']));
    expect(shipped.agents['fault-remediation']!.permission).not.toContainEqual(['bash', '*', 'allow']);
    expect(shipped).toMatchObject({ plugin: [], instructions: [], default_agent: 'network-troubleshooter' });
    expect(compareRuntimeConfig(shipped, shapeOf(shippedRuntimeAnswers()))).toEqual([]);
  });

  it('names each way a runtime differs: a rule added or replaced, an extra agent, a plugin, instructions, an MCP server', () => {
    const answers = shippedRuntimeAnswers();
    const fr = answers.agents.find((a) => a.name === 'fault-remediation')!;
    fr.permission.push({ permission: 'bash', pattern: '*', action: 'allow' });
    answers.agents.push({ ...fr, name: 'shell', permission: [{ permission: '*', pattern: '*', action: 'allow' }] });
    Object.assign(answers.config, { plugin: ['evil-plugin'], instructions: ['~/notes.md'], mcp: { ...answers.config.mcp, extra: { type: 'local', command: ['sh', '-c', 'x'] } } });
    const differences = compareRuntimeConfig(shipped, shapeOf(answers));
    expect(differences).toEqual([
      { subject: 'agent fault-remediation', why: 'has permission rules the relay does not ship: bash * allow' },
      { subject: 'agent shell', why: 'is not shipped by the relay' },
      { subject: 'the runtime', why: 'has plugins the relay does not ship: evil-plugin' },
      { subject: 'the runtime', why: 'has instruction files the relay does not ship: ~/notes.md' },
      { subject: 'MCP server extra', why: 'is not shipped by the relay (local sh -c x)' },
    ]);
    expect(describeConfigDifferences(differences)).toMatch(/^the agent runtime's configuration is not as shipped: agent fault-remediation has permission rules the relay does not ship: bash \* allow \(and 4 more: /);
  });

  it('sees a shipped deny replaced in place (OPENCODE_PERMISSION merges into the global rules) and a rule moved', () => {
    const answers = shippedRuntimeAnswers();
    for (const agent of answers.agents) for (const rule of agent.permission) if (rule.permission === 'webfetch' && rule.action === 'deny') rule.action = 'allow';
    const moved = shippedRuntimeAnswers();
    const reader = moved.agents.find((a) => a.name === 'kb-reader')!;
    reader.permission.push(reader.permission.shift()!);
    expect(compareRuntimeConfig(shipped, shapeOf(answers))).toContainEqual({ subject: 'agent fault-remediation', why: 'has permission rules the relay does not ship: webfetch * allow' });
    expect(compareRuntimeConfig(shipped, shapeOf(moved))).toEqual([{ subject: 'agent kb-reader', why: 'has the shipped permission rules in another order (the last matching rule wins)' }]);
  });
});

describe('the embedded runtime environment', () => {
  it('has its own HOME and XDG folders under the data folder, and takes a model-only OPENCODE_CONFIG_CONTENT', () => {
    const dataDir = tempDir('runtime-env-');
    const content = JSON.stringify({ model: 'anthropic/claude-sonnet-4-5', provider: {} });
    const env = embeddedRuntimeEnv({ env: { OPENCODE_CONFIG_CONTENT: content }, dataDir, projectDir: tempDir('runtime-env-project-') });
    expect(env).toMatchObject({ HOME: `${dataDir}/runtime-home`, XDG_CONFIG_HOME: `${dataDir}/runtime-home/config`, XDG_DATA_HOME: `${dataDir}/runtime-home/data`, OPENCODE_CONFIG_CONTENT: content, OPENCODE_DISABLE_CLAUDE_CODE: '1' });
  });

  it("points opencode's managed configuration folder (/etc/opencode) at an empty one of its own, and refuses to start when a file is found there", () => {
    const dataDir = tempDir('runtime-env-managed-');
    const projectDir = tempDir('runtime-env-project-');
    const env = embeddedRuntimeEnv({ env: {}, dataDir, projectDir });
    expect(env[MANAGED_CONFIG_ENV]).toBe(path.join(dataDir, 'runtime-home', 'managed-config'));
    mkdirSync(env[MANAGED_CONFIG_ENV]!, { recursive: true });
    writeFileSync(path.join(env[MANAGED_CONFIG_ENV]!, 'opencode.jsonc'), '{ "permission": { "bash": "allow" } }');
    expect(() => embeddedRuntimeEnv({ env: {}, dataDir, projectDir })).toThrow(ConfigError);
    expect(() => embeddedRuntimeEnv({ env: {}, dataDir, projectDir })).toThrow(
      `${path.join(env[MANAGED_CONFIG_ENV]!, 'opencode.jsonc')}: the relay writes no managed opencode configuration, and the runtime would load this over the shipped agent files; the agent runtime was not started. Remove it.`,
    );
  });

  it("names the machine's managed configuration for a runtime the relay did not start, only while a file is there", () => {
    expect(systemManagedConfigDir('linux')).toBe('/etc/opencode');
    expect(systemManagedConfigDir('darwin')).toBe('/Library/Application Support/opencode');
    expect(systemManagedConfigDir('win32', { ProgramData: 'D:\\PD' })).toBe('D:\\PD\\opencode');
    const standIn = tempDir('opencode-managed-');
    expect(externalRuntimeManagedWarnings(standIn)).toEqual([]);
    writeFileSync(path.join(standIn, 'opencode.json'), '{}');
    expect(externalRuntimeManagedWarnings(standIn)).toEqual([expect.stringMatching(new RegExp(`^opencode's managed configuration ${path.join(standIn, 'opencode.json')} exists on this machine`))]);
  });

  it('refuses an OPENCODE_CONFIG_CONTENT that sets more than the model, naming the keys', () => {
    const start = (text: string) => () => embeddedRuntimeEnv({ env: { OPENCODE_CONFIG_CONTENT: text }, dataDir: tempDir('runtime-env-'), projectDir: tempDir('runtime-env-project-') });
    expect(start(JSON.stringify({ model: 'a/b', agent: {}, permission: { bash: 'allow' } }))).toThrow(ConfigError);
    expect(start(JSON.stringify({ model: 'a/b', agent: {}, permission: { bash: 'allow' } }))).toThrow(/OPENCODE_CONFIG_CONTENT sets agent, permission: the agent runtime was not started/);
    expect(start('{not json')).toThrow(/OPENCODE_CONFIG_CONTENT is not JSON/);
  });
});
