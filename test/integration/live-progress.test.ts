import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient } from '../../src/adapters/agent/client';
import { systemClock } from '../../src/core/clock';
import { createRuntimeEventMapper, startRuntimeEventFollower } from '../../src/adapters/agent/runtime-events';
import { createSessionLogWriter } from '../../src/core/incidents/session-log';
import { scriptedProviderConfig, startScriptedModel, textOf, toolNames, type ScriptedModel } from '../fakes/scripted-model';
import { repoRoot, startOpencode, type OpencodeHarness, observerClient } from '../helpers/opencode';
import { silent } from '../helpers/relay';
import { inMemoryIncidents } from '../unit/incidents/in-memory-incidents';
import { laptopCluster } from '../../src/core/cluster/laptop';
const { owns } = laptopCluster({ relayTag: 'test' });

// ia-reader's own rules (appended after these test agents') allow reading artifacts only.
const configFile = path.join(repoRoot, 'intelligence-artifacts/AD000002/FS.yaml');

/**
 * The runner reads an artifact, hands the rest to the ia-reader subagent through `task`, then
 * sums up. The subagent reads the same file and answers. Title requests (no tools) get a title.
 */
function script() {
  return startScriptedModel((request) => {
    if (!toolNames(request).length) return { text: 'Scripted title' };
    const system = textOf(request.messages.find((m) => m.role === 'system'));
    const last = request.messages.at(-1);
    if (system.includes('You are IA-READER')) {
      return last?.role === 'tool' ? { text: 'IA read: permissions deny webfetch' } : { toolCalls: [{ name: 'read', arguments: { filePath: configFile } }] };
    }
    if (last?.role !== 'tool') return { toolCalls: [{ name: 'read', arguments: { filePath: configFile } }] };
    if (textOf(last).includes('<task')) return { text: 'Runner: checked, nothing to change' };
    return { toolCalls: [{ name: 'task', arguments: { description: 'read the artifacts', prompt: 'Read the FS', subagent_type: 'ia-reader' } }] };
  });
}

let model: ScriptedModel;
let oc: OpencodeHarness;
let client: AgentClient;
const dirs: string[] = [];

beforeAll(async () => {
  model = await script();
  oc = await startOpencode({
    configContent: scriptedProviderConfig(model.baseURL, {
      agent: {
        'incident-runner': { mode: 'primary', description: 'test primary', prompt: 'You are INCIDENT-RUNNER.', permission: { '*': 'allow' } },
        'ia-reader': { mode: 'subagent', description: 'Reads intelligence artifacts', prompt: 'You are IA-READER.', permission: { '*': 'allow' } },
      },
    }),
  });
  client = observerClient(oc.endpoint, { reconnectDelay: () => 100 });
});
afterAll(async () => {
  await client?.close();
  await oc?.stop();
  await model?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('live progress on the real opencode server', () => {
  it('shows the run of an incident in its timeline: agent and subagent started, tool calls, answers, idle; the log follows', async () => {
    const relay = inMemoryIncidents(systemClock);
    const logDir = mkdtempSync(path.join(tmpdir(), 'relay-live-'));
    dirs.push(logDir);
    const writer = createSessionLogWriter({ incidents: relay.incidents, bus: relay.bus, logDir, logger: silent, owns });
    const mapper = createRuntimeEventMapper({ incidents: relay.incidents, agent: client, logger: silent, owns });
    let onConnected!: () => void;
    const connected = new Promise<void>((resolve) => (onConnected = resolve));
    const follower = startRuntimeEventFollower({ agent: client, mapper, logger: silent, onStatus: (s) => s.connected && onConnected() });
    try {
      await connected;
      const session = await client.createSession({ title: 'INC-live AD000002 R1' });
      const incident = relay.running(session.id);
      const id = incident.incident_id;
      const idle = new Promise<void>((resolve) =>
        relay.bus.subscribe('incident.timeline', ({ incident_id, entry }) => {
          if (incident_id === id && entry.type === 'session.idle') resolve();
        }),
      );
      await client.promptAsync(session.id, { agent: 'incident-runner', text: `Troubleshoot ${id}` });
      await idle;

      const timeline = relay.incidents.timeline(id);
      const progress = timeline.filter((e) => !['alert.received', 'state.changed'].includes(e.type)).map((e) => `${e.type} ${e.message}`);
      expect(progress).toEqual([
        'agent.started incident-runner started',
        'tool.running incident-runner: read running',
        'tool.completed incident-runner: read completed',
        'agent.started ia-reader started (subagent)',
        'tool.running incident-runner: task → ia-reader running',
        'tool.running ia-reader: read running',
        'tool.completed ia-reader: read completed',
        'agent.text IA read: permissions deny webfetch',
        'tool.completed incident-runner: task → ia-reader completed',
        'agent.text Runner: checked, nothing to change',
        'session.idle incident-runner idle',
        'warning agent stopped without reporting an outcome',
      ]);
      const child = timeline.find((e) => e.type === 'agent.started' && e.agent === 'ia-reader');
      expect((await client.getSession(String(child?.session_id))).parentID).toBe(session.id);
      expect(timeline.find((e) => e.type === 'tool.completed' && e.tool === 'read')?.output).toContain('FS.yaml');
      expect(follower.status()).toMatchObject({ connected: true, last_event_at: expect.any(String) });

      // The relay's record is the log, whatever the agent did or did not do.
      expect(existsSync(writer.pathFor(incident))).toBe(false);
      relay.incidents.transition(id, 'escalate', () => ({ outcome: { kind: 'escalated', summary: 'no outcome reported', at: new Date().toISOString() } }));
      await writer.flushed();
      const md = readFileSync(writer.pathFor(incident), 'utf8');
      expect(md).toContain('| State | escalated |');
      expect(md).toContain('| agent.started | ia-reader started (subagent) |');
      expect(md).toContain('| tool.completed | incident-runner: read completed |');
    } finally {
      await follower.stop();
      await writer.stop();
    }
  });
});
