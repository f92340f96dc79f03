import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient } from '../../src/adapters/agent/client';
import { compareRuntimeFiles } from '../../src/adapters/agent/integrity';
import { scriptedProviderConfig, startScriptedModel, textOf, toolNames, type ChatRequest, type ScriptedModel, type Step } from '../fakes/scripted-model';
import { startRelayToolsStub } from '../fakes/relay-tools-stub';
import { decide, getJson, untilIdle, type AgentInfo } from '../helpers/agent-permissions';
import { repoRoot, startOpencode, type OpencodeHarness, observerClient } from '../helpers/opencode';
import { tempDir } from '../helpers/temp-dir';

/**
 * The second wall behind the relay's check of the runtime files, on the real opencode server: with
 * opencode.json's permission starting at `"*": "deny"`, an agent file that lost its front matter
 * (opencode then gives it its defaults, bash included) and a new agent file with no permission
 * block get no tools at all, and opencode's own agents no shell; the shipped agents keep theirs.
 * The relay would refuse to start this runtime (see the last test); opencode is started directly.
 */
let dir: string;
let relayStub: Awaited<ReturnType<typeof startRelayToolsStub>>;
let model: ScriptedModel;
let oc: OpencodeHarness;
let client: AgentClient;
let agents: AgentInfo[];
const offered = new Map<string, string[]>();

/** Each agent's first request shows what it is offered; it then tries a shell anyway. */
function script(request: ChatRequest): Step {
  const system = textOf(request.messages.find((m) => m.role === 'system'));
  const name = /^You are ([a-z-]+)[.,]/.exec(system.trimStart())?.[1];
  if (!name || /title generator/i.test(system)) return { text: 'Scripted title' };
  if (!offered.has(name)) offered.set(name, toolNames(request));
  if (request.messages.at(-1)?.role === 'tool') return { text: `${name} done` };
  return { toolCalls: [{ name: 'bash', arguments: { command: 'env', description: 'look around' } }] };
}

beforeAll(async () => {
  dir = tempDir('agent-defaults-');
  cpSync(path.join(repoRoot, '.opencode/agent'), path.join(dir, '.opencode/agent'), { recursive: true });
  cpSync(path.join(repoRoot, 'opencode.json'), path.join(dir, 'opencode.json'));
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
  const fr = path.join(dir, '.opencode/agent/fault-remediation.md');
  const text = readFileSync(fr, 'utf8');
  writeFileSync(fr, text.slice(text.indexOf('\n---\n', 4) + 5));
  writeFileSync(path.join(dir, '.opencode/agent/newbie.md'), '---\ndescription: A helper nobody reviewed\nmode: primary\n---\nYou are newbie. Help with anything.\n');
  relayStub = await startRelayToolsStub();
  model = await startScriptedModel(script);
  oc = await startOpencode({
    cwd: dir,
    configContent: scriptedProviderConfig(model.baseURL, {
      mcp: { relay: { type: 'remote', url: relayStub.url, oauth: false, enabled: true }, device: { enabled: false }, kb: { enabled: false } },
    }),
  });
  client = observerClient(oc.endpoint, { reconnectDelay: () => 100 });
  agents = await getJson<AgentInfo[]>(oc.endpoint, '/agent');
});

afterAll(async () => {
  await client?.close();
  await oc?.stop();
  await model?.stop();
  await relayStub?.stop();
});

const agent = (name: string) => agents.find((a) => a.name === name) ?? expect.fail(`agent ${name} not listed`);
const TOOLS = ['bash', 'edit', 'write', 'read', 'glob', 'grep', 'list', 'task', 'todowrite', 'webfetch', 'websearch', 'skill', 'question', 'relay_wait', 'relay_notify', 'relay_report_outcome', 'device_exec_cli', 'kb_wiki_query'];

async function runAs(name: string) {
  const target: { id?: string } = {};
  const run = untilIdle(client, () => target.id);
  await run.connected;
  target.id = (await client.createSession({ title: `agent defaults ${name}` })).id;
  await client.promptAsync(target.id, { agent: name, text: 'Look around and fix what you find.' });
  return run.done;
}

describe('agent files the relay does not ship, on the real runtime', () => {
  it('GET /agent: a truncated agent file and a new one without permissions resolve to deny for every tool and pattern', () => {
    expect(agent('fault-remediation').mode).toBe('all');
    expect(agent('newbie').mode).toBe('primary');
    for (const name of ['fault-remediation', 'newbie']) {
      for (const tool of TOOLS) expect(decide(agent(name), tool), `${name} ${tool}`).toBe('deny');
      expect(decide(agent(name), 'bash', 'sleep 10'), name).toBe('deny');
      expect(decide(agent(name), 'edit', '.opencode/agent/fault-remediation.md'), name).toBe('deny');
      expect(decide(agent(name), 'read', '.relay-data/runtime-attach.json'), name).toBe('deny');
      expect(decide(agent(name), 'external_directory', '/proc/self/environ'), name).toBe('deny');
    }
    // opencode's own agents (build, plan, general, explore) have no shell either: the global rules come last for them.
    for (const a of agents.filter((x) => x.native)) expect(decide(a, 'bash', 'ls'), a.name).toBe('deny');
    // The shipped ones keep exactly their own.
    expect(decide(agent('ia-reader'), 'read', 'intelligence-artifacts/AD000002/RAW.yaml')).toBe('allow');
    expect(decide(agent('msg-notify'), 'relay_notify')).toBe('allow');
  });

  it('offers them no tool at all when they run, so a shell call cannot even be made; a shipped agent is offered its own', async () => {
    for (const name of ['fault-remediation', 'newbie', 'ia-reader']) expect((await runAs(name)).type, name).toBe('session.idle');
    expect(offered.get('fault-remediation')).toEqual([]);
    expect(offered.get('newbie')).toEqual([]);
    expect(offered.get('ia-reader')).toEqual(['read']);
    // The model asked for bash and got words back from the scripted server, not a tool run.
    expect(relayStub.calls).toEqual([]);
  });

  it('is what the relay refuses to start a runtime on, naming both files', () => {
    expect(compareRuntimeFiles(dir).map((d) => d.file)).toEqual(['.opencode/agent/fault-remediation.md', '.opencode/agent/newbie.md']);
  });
});
