import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient } from '../../src/adapters/agent/client';
import { renderPromptText } from '../../src/core/incidents/agent-prompt';
import { startLab, type RunningLab } from '../../harness/ios-lab/server';
import { scriptedProviderConfig, startScriptedModel, textOf, toolNames, type ChatRequest, type ScriptedModel, type Step } from '../fakes/scripted-model';
import { repoRoot, startOpencode, type OpencodeHarness, observerClient } from '../helpers/opencode';
import { decide, getJson, untilIdle, type AgentInfo } from '../helpers/agent-permissions';
import { startRelayToolsStub } from '../fakes/relay-tools-stub';

/**
 * The agent definitions on the real opencode server: which agents exist, what each may do
 * (rules as opencode resolved them), and, with a scripted model, what each is actually offered
 * and allowed when it runs. Device tools come from the lab, the relay's tools from a stub that
 * records calls (the relay itself is tested elsewhere).
 */

const INCIDENT = 'INC-19700101T000000Z';
const LOG_ALLOWED = `logs/troubleshooting/19700101T000000Z-AD000002-AGENTTEST${process.pid}.agent.md`;
const LOG_DENIED = `logs/troubleshooting/19700101T000000Z-AD000002-AGENTTEST${process.pid}.md`;

const INCIDENT_AGENTS = ['network-troubleshooter', 'ia-reader', 'kb-reader', 'fault-remediation', 'msg-notify'] as const;
const UTILITY_AGENTS = ['builder', 'ia-curator', 'kb-curator'] as const;
const OURS = [...INCIDENT_AGENTS, ...UTILITY_AGENTS];
/** The change policy the relay enforces and the records it names: no agent reads or writes them. */
const POLICY_FILES = ['policy.yaml', 'change-records.yaml', 'maintenance-windows.ics'];
const POLICY_TEXT = Object.fromEntries(POLICY_FILES.map((f) => [f, readFileSync(path.join(repoRoot, f), 'utf8')]));

let lab: RunningLab;
let relayStub: Awaited<ReturnType<typeof startRelayToolsStub>>;
let model: ScriptedModel;
let oc: OpencodeHarness;
let client: AgentClient;
let agents: AgentInfo[];

/** Which agent a request is for, from the first words of its system prompt. */
function agentOf(request: ChatRequest): string | undefined {
  const system = textOf(request.messages.find((m) => m.role === 'system'));
  if (system.startsWith('You are the network troubleshooter')) return 'network-troubleshooter';
  return INCIDENT_AGENTS.find((name) => new RegExp(`^You are ${name}[.,]`).test(system));
}

const offered = new Map<string, string[]>();
const taskDescription = { text: '' };

/**
 * One scripted incident turn: the troubleshooter delegates to all four subagents at once; each
 * makes the calls its job needs plus, where it makes the point, one it must not be allowed; then
 * the troubleshooter writes its log (allowed path) and the relay's log name (denied).
 */
function script(request: ChatRequest): Step {
  if (!toolNames(request).length) return { text: 'Scripted title' };
  const agent = agentOf(request);
  if (!agent) return { text: 'unknown agent' };
  if (!offered.has(agent)) offered.set(agent, toolNames(request));
  const toolMessages = request.messages.filter((m) => m.role === 'tool').length;
  const done = { text: `${agent} done` };
  switch (agent) {
    case 'network-troubleshooter': {
      taskDescription.text = String((request.tools ?? []).find((t) => t.function.name === 'task')?.function.description ?? '');
      if (toolMessages === 0) {
        const task = (subagent_type: string) => ({ name: 'task', arguments: { description: `Run ${subagent_type}`, prompt: `incident ${INCIDENT}`, subagent_type } });
        return { toolCalls: INCIDENT_AGENTS.slice(1).map(task) };
      }
      if (toolMessages === 4) {
        return {
          toolCalls: [
            { name: 'write', arguments: { filePath: path.join(repoRoot, LOG_ALLOWED), content: `# ${INCIDENT}\n` } },
            { name: 'write', arguments: { filePath: path.join(repoRoot, LOG_DENIED), content: `# ${INCIDENT}\n` } },
            { name: 'write', arguments: { filePath: path.join(repoRoot, 'policy.yaml'), content: 'version: 1\ndefault: approve\n' } },
          ],
        };
      }
      return done;
    }
    case 'ia-reader':
      return toolMessages
        ? done
        : {
            toolCalls: [
              { name: 'read', arguments: { filePath: path.join(repoRoot, 'intelligence-artifacts/AD000002/FS.yaml') } },
              { name: 'read', arguments: { filePath: path.join(repoRoot, 'opencode.json') } },
              { name: 'read', arguments: { filePath: path.join(repoRoot, 'policy.yaml') } },
              { name: 'read', arguments: { filePath: path.join(repoRoot, 'change-records.yaml') } },
            ],
          };
    case 'kb-reader':
      return toolMessages ? done : { toolCalls: [{ name: 'kb_wiki_query', arguments: { query: 'R1 BGP neighbor 10.0.0.6 shutdown', depth: 'quick' } }] };
    case 'fault-remediation':
      return toolMessages ? done : { toolCalls: [{ name: 'device_exec_cli', arguments: { incident_id: INCIDENT, device: 'R1', command: 'show version' } }] };
    case 'msg-notify':
      return toolMessages
        ? done
        : { toolCalls: [{ name: 'relay_notify', arguments: { incident_id: INCIDENT, kind: 'fault-received', markdown: '**agents test**' } }] };
  }
  return done;
}

beforeAll(async () => {
  lab = await startLab({ port: 0, logger: pino({ level: 'silent' }) });
  relayStub = await startRelayToolsStub();
  model = await startScriptedModel(script);
  oc = await startOpencode({
    configContent: scriptedProviderConfig(model.baseURL, {
      mcp: {
        device: { type: 'remote', url: lab.mcpUrl, oauth: false, enabled: true },
        relay: { type: 'remote', url: relayStub.url, oauth: false, enabled: true },
      },
    }),
  });
  client = observerClient(oc.endpoint, { reconnectDelay: () => 100 });
  agents = await get<AgentInfo[]>('/agent');
});

afterAll(async () => {
  await client?.close();
  await oc?.stop();
  await model?.stop();
  await relayStub?.stop();
  await lab?.stop();
  for (const file of [LOG_ALLOWED, LOG_DENIED]) rmSync(path.join(repoRoot, file), { force: true });
  // Put back whatever a failing run may have written over.
  for (const file of POLICY_FILES) if (readFileSync(path.join(repoRoot, file), 'utf8') !== POLICY_TEXT[file]) writeFileSync(path.join(repoRoot, file), POLICY_TEXT[file]!);
});

const get = <T>(route: string) => getJson<T>(oc.endpoint, route);

const agent = (name: string) => {
  const found = agents.find((a) => a.name === name);
  if (!found) throw new Error(`agent ${name} not listed`);
  return found;
};
/** Agents (ours and opencode's own) for which the rule resolves to allow. */
const allowedFor = (permission: string, pattern = '*') =>
  agents
    .filter((a) => decide(a, permission, pattern) === 'allow')
    .map((a) => a.name)
    .sort();

describe('agent definitions on the real opencode server', () => {
  it('lists the five incident agents and three utility agents; only the troubleshooter is primary, and the default', async () => {
    expect(Object.fromEntries(OURS.map((name) => [name, agent(name).mode]))).toEqual({
      'network-troubleshooter': 'primary',
      'ia-reader': 'subagent',
      'kb-reader': 'subagent',
      'fault-remediation': 'subagent',
      'msg-notify': 'subagent',
      builder: 'subagent',
      'ia-curator': 'subagent',
      'kb-curator': 'subagent',
    });
    // The terminal UI opens on it, and Tab does not pass through the utility agents first.
    expect((await get<{ default_agent?: string }>('/config')).default_agent).toBe('network-troubleshooter');
    expect(OURS.filter((name) => agent(name).mode === 'primary')).toEqual(['network-troubleshooter']);
    expect(agent('network-troubleshooter').prompt).toContain('HUMAN OPERATOR RESPONSE');
  });

  it('lets only fault-remediation reach device tools, only msg-notify notify and ask for approval, only fault-remediation report the outcome', () => {
    expect(allowedFor('device_exec_cli')).toEqual(['fault-remediation']);
    expect(allowedFor('device_config_cli')).toEqual(['fault-remediation']);
    expect(allowedFor('relay_notify')).toEqual(['msg-notify']);
    expect(allowedFor('relay_request_approval')).toEqual(['msg-notify']);
    expect(allowedFor('relay_report_outcome')).toEqual(['fault-remediation']);
    expect(allowedFor('relay_wait')).toEqual(['fault-remediation']);
    expect(allowedFor('kb_wiki_query')).toEqual(['builder', 'kb-curator', 'kb-reader']);
  });

  it('lets nobody but ia-curator edit intelligence artifacts', () => {
    expect(allowedFor('edit', 'intelligence-artifacts/AD000002/RAW.yaml')).toEqual(['ia-curator']);
    expect(allowedFor('edit', 'kb/policies/approval-policy.md')).toEqual(['kb-curator', ...agents.filter((a) => a.native && decide(a, 'edit', 'kb/x.md') === 'allow').map((a) => a.name)].sort());
  });

  it('lets the troubleshooter delegate to exactly the four incident subagents and write only its own log', () => {
    const t = agent('network-troubleshooter');
    for (const sub of INCIDENT_AGENTS.slice(1)) expect(decide(t, 'task', sub), sub).toBe('allow');
    for (const other of [...UTILITY_AGENTS, 'general', 'explore']) expect(decide(t, 'task', other), other).toBe('deny');
    expect(decide(t, 'edit', LOG_ALLOWED)).toBe('allow');
    expect(decide(t, 'edit', LOG_DENIED)).toBe('deny');
    expect(decide(t, 'edit', 'opencode.json')).toBe('deny');
  });

  it('gives no agent a shell, under any pattern, and no agent (opencode\'s own included) a way to write the runtime\'s files', () => {
    for (const command of ['sleep 10', 'ls', 'sleep 1 > .opencode/agent/x.md', 'declare -p', '*']) expect(allowedFor('bash', command), command).toEqual([]);
    for (const file of ['.opencode/agent/fault-remediation.md', '.opencode/plugins/x.js', 'opencode.json', 'opencode.jsonc']) expect(allowedFor('edit', file), file).toEqual([]);
    expect(allowedFor('external_directory', '/proc/self/environ')).toEqual([]);
    // Nor read or write the change policy: the rules that decide who approves are not the model's to see or bend.
    for (const file of POLICY_FILES) expect({ file, read: allowedFor('read', file), edit: allowedFor('edit', file) }).toEqual({ file, read: [], edit: [] });
    // grep is checked against its regex, not the files it searches: an agent with it reads every file in the project.
    expect(allowedFor('grep')).toEqual([]);
    // The utility agents are not reachable from an incident, and say so.
    for (const name of UTILITY_AGENTS) expect(agent(name).prompt, name).toMatch(/never reachable from one/);
  });

  it('never leaves an incident agent with a rule that would ask (a question blocks a headless run)', () => {
    for (const name of OURS) {
      const rules = agent(name).permission;
      const own = rules.slice(rules.findLastIndex((r) => r.permission === '*' && r.pattern === '*' && r.action === 'deny'));
      expect(own.length, name).toBeGreaterThan(1);
      expect(own.filter((r) => r.action === 'ask'), name).toEqual([]);
    }
  });

  it('connects the kb stdio server from opencode.json', async () => {
    const mcp = await get<Record<string, { status: string }>>('/mcp');
    expect(mcp.kb).toEqual({ status: 'connected' });
    expect(mcp.device?.status).toBe('connected');
    expect(mcp.relay?.status).toBe('connected');
  });
});

describe('a scripted incident turn through the agents', () => {
  let toolResults: Map<string, string[]>;

  beforeAll(async () => {
    const target: { id?: string } = {};
    const run = untilIdle(client, () => target.id);
    await run.connected;
    const session = await client.createSession({ title: `${INCIDENT} agents test` });
    target.id = session.id;
    const text = renderPromptText({
      incident_id: INCIDENT,
      alert_def_id: 'AD000002',
      device_hostname: 'R1',
      mode: 'strict',
      kb_query_mode: 'quick',
      alert_vars: { neighbor_ip: '10.0.0.6' },
      raw_message: null,
    });
    await client.promptAsync(session.id, { agent: 'network-troubleshooter', text });
    expect((await run.done).type).toBe('session.idle');
    // What each agent's model saw come back from its tools, per agent.
    toolResults = new Map();
    for (const r of model.requests()) {
      const name = agentOf(r);
      if (!name) continue;
      toolResults.set(name, r.messages.filter((m) => m.role === 'tool').map((m) => textOf(m)));
    }
  });

  it('offers each agent only the tools of its job', () => {
    const mcpTools = (name: string) => (offered.get(name) ?? []).filter((t) => /^(device|relay|kb)_/.test(t)).sort();
    expect(mcpTools('network-troubleshooter')).toEqual([]);
    expect(mcpTools('ia-reader')).toEqual([]);
    expect(mcpTools('kb-reader')).toEqual(['kb_wiki_query']);
    expect(mcpTools('fault-remediation')).toEqual(['device_config_cli', 'device_exec_cli', 'relay_report_outcome', 'relay_wait']);
    for (const name of INCIDENT_AGENTS) expect(offered.get(name), name).not.toContain('bash');
    expect(mcpTools('msg-notify')).toEqual(['relay_notify', 'relay_request_approval']);
    expect(offered.get('network-troubleshooter')).toEqual(expect.arrayContaining(['task', 'write']));
    expect(offered.get('network-troubleshooter')).not.toContain('bash');
    // Subagents that only read or only talk see nothing else at all: no write, edit, bash or task.
    expect(offered.get('ia-reader')).toEqual(['read']);
    expect(offered.get('kb-reader')).toEqual(['kb_wiki_query']);
    expect([...offered.get('msg-notify')!].sort()).toEqual(['relay_notify', 'relay_request_approval']);
    expect(offered.get('fault-remediation')).not.toEqual(expect.arrayContaining(['write']));
    // The task tool names the incident subagents and none of the utility agents.
    for (const sub of INCIDENT_AGENTS.slice(1)) expect(taskDescription.text).toContain(sub);
    for (const other of UTILITY_AGENTS) expect(taskDescription.text).not.toContain(other);
  });

  it('lets ia-reader read the artifacts but nothing else', () => {
    const [fs, config] = toolResults.get('ia-reader') ?? [];
    expect(fs).toContain('kind: fault_signature');
    expect(config).not.toContain('"mcp"');
    expect(config).toMatch(/permission|denied|rule/i);
  });

  it('gives no agent the change policy: ia-reader is refused policy.yaml and its change records, the troubleshooter cannot write it', () => {
    const [, , policy, records] = toolResults.get('ia-reader') ?? [];
    for (const refused of [policy, records]) {
      expect(refused).toMatch(/permission|denied|rule/i);
      expect(refused).not.toMatch(/SC-BGP-01|freezes|CHG-/);
    }
    for (const file of POLICY_FILES) expect(readFileSync(path.join(repoRoot, file), 'utf8'), file).toBe(POLICY_TEXT[file]);
  });

  it('gives kb-reader the wiki answer for its depth through the kb server', () => {
    const [answer] = toolResults.get('kb-reader') ?? [];
    expect(answer).toContain('depth quick');
    expect(answer).toContain('KI-0011');
  });

  it('lets fault-remediation run a show command on the lab and msg-notify reach the relay', () => {
    expect(toolResults.get('fault-remediation')?.[0]).toContain('Cisco IOS XE Software');
    expect(relayStub.calls).toEqual([{ tool: 'notify', args: { incident_id: INCIDENT, kind: 'fault-received', markdown: '**agents test**' } }]);
  });

  it('lets the troubleshooter write its own log but not the relay\'s log file', () => {
    expect(readFileSync(path.join(repoRoot, LOG_ALLOWED), 'utf8')).toBe(`# ${INCIDENT}\n`);
    expect(existsSync(path.join(repoRoot, LOG_DENIED))).toBe(false);
  });
});
