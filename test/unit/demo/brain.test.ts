import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../harness/raw-tests/clock';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import type { ArtifactGroup } from '../../../src/runbooks/validate';
import { createDemoBrain, type RemediationVariant } from '../../../harness/demo/brain';
import { taskText } from '../../../harness/demo/brain/messages';
import type { ChatMessage, ChatRequest, Step } from '../../../harness/demo/scripted-model';
import { loadInventory } from '../../../harness/ios-lab/inventory';
import type { FaultSpec } from '../../../src/runbooks/fault-spec';
import { createLab } from '../../../harness/ios-lab/lab';

/**
 * The scripted fault-remediation against the in-process lab on virtual time: its `relay_wait` moves
 * the lab's clock. Each request carries the whole conversation; the brain keeps nothing between them.
 */
const repoRoot = path.resolve(import.meta.dirname, '../../..');
let groups: Map<string, ArtifactGroup>;
beforeAll(async () => {
  const dir = path.join(repoRoot, 'intelligence-artifacts');
  groups = new Map([
    ['AD000002', await loadArtifactGroup(dir, 'AD000002')],
    ['AD000003', await loadArtifactGroup(dir, 'AD000003')],
    ['AD000008', await loadArtifactGroup(dir, 'AD000008')],
  ]);
});

const TOOLS = ['device_exec_cli', 'device_config_cli', 'relay_report_outcome', 'relay_wait', 'read'];
const task = {
  incident_id: 'INC-20261121T100000Z',
  alert_def_id: 'AD000002',
  device_hostname: 'R1',
  mode: 'strict',
  raw: 'intelligence-artifacts/AD000002/RAW.yaml',
  inputs: { device_hostname: 'R1', neighbor_ip: '10.0.0.2', vrf_name: '' },
};
const request = (messages: ChatMessage[]): ChatRequest => ({
  model: 'scripted',
  messages: [{ role: 'system', content: 'You are fault-remediation, the only agent that reaches network devices.' }, ...messages],
  tools: TOOLS.map((name) => ({ type: 'function' as const, function: { name } })),
});

async function setup(variant: RemediationVariant = 'faithful', fault: FaultSpec = { fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' }) {
  const clock = createVirtualClock();
  const lab = createLab({ inventory: await loadInventory(), clock, convergeDelayMs: 4_000 });
  lab.inject(fault);
  const brain = createDemoBrain({ groups, projectDir: repoRoot, variantFor: () => variant });
  const think = (messages: ChatMessage[]) => (brain as (r: ChatRequest, c: { index: number }) => Step)(request(messages), { index: 0 });
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  /** Runs tool calls against the lab until the agent answers in text. */
  const runUntilText = (messages: ChatMessage[]): string => {
    for (let i = 0; i < 50; i++) {
      const step = think(messages);
      if ('text' in step) {
        messages.push({ role: 'assistant', content: step.text });
        return step.text;
      }
      if (!('toolCalls' in step)) throw new Error('unexpected step');
      const [tc] = step.toolCalls;
      const args = tc!.arguments as Record<string, unknown>;
      calls.push({ name: tc!.name, args });
      let output = '{"recorded":true}';
      if (tc!.name === 'device_exec_cli') {
        const r = lab.exec(String(args.device), String(args.command));
        output = r.ok ? r.output : r.error;
      } else if (tc!.name === 'device_config_cli' && args.plan) {
        // As the relay's guard answers a plan: every device in order (the lab refuses nothing here).
        output = (args.plan as { device: string; commands: string[] }[]).map((e) => lab.config(e.device, e.commands)).map((r) => (r.ok ? r.output : r.error)).join('\n');
      } else if (tc!.name === 'device_config_cli') {
        const r = lab.config(String(args.device), args.commands as string[]);
        output = r.ok ? r.output : r.error;
      } else if (tc!.name === 'relay_wait') {
        clock.advance(Number(args.seconds) * 1000);
        output = '';
      }
      const id = `call_${i}_${messages.length}`;
      messages.push({ role: 'assistant', content: '', tool_calls: [{ id, function: { name: tc!.name, arguments: JSON.stringify(args) } }] });
      messages.push({ role: 'tool', tool_call_id: id, content: output });
    }
    throw new Error('no answer within 50 steps');
  };
  return { lab, think, calls, runUntilText };
}

const decision = (word: 'APPROVED' | 'DENIED', commands: string[]) =>
  `HUMAN OPERATOR RESPONSE: ${word}. …\n${JSON.stringify({ incident_id: task.incident_id, decision: word, approved_commands: word === 'APPROVED' ? commands : [] })}`;
const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end'];

describe('scripted fault-remediation (demo brain)', () => {
  it('runs the RAW show commands, stops at the repair with the exact lines, then applies exactly the approved lines, waits and resolves', async () => {
    const { lab, calls, runUntilText, think } = await setup();
    const messages: ChatMessage[] = [{ role: 'user', content: taskText('Execute the RAW.', task) }];
    const first = runUntilText(messages);
    expect(first).toMatch(/^APPROVAL REQUIRED\n/);
    expect(first).toContain(`commands:\n${REPAIR.map((l) => `- ${l}`).join('\n')}\n`);
    expect(first).toContain('artifact_ref: intelligence-artifacts/AD000002/RAW.yaml#repair_no_shutdown');
    expect(calls.map((c) => c.args.command)).toEqual(['show version', 'show ip bgp neighbors 10.0.0.2', 'show running-config | section router bgp', 'show logging | include ADJCHANGE|CONFIG_I']);
    expect(lab.configChanges()).toBe(0);
    // Same conversation, same answer: nothing is remembered between requests.
    expect(think(messages.slice(0, -1))).toEqual({ text: first });

    messages.push({ role: 'user', content: decision('APPROVED', REPAIR) });
    const second = runUntilText(messages);
    expect(second).toMatch(/^OUTCOME: resolved\n/);
    expect(calls.filter((c) => c.name === 'device_config_cli').map((c) => c.args.commands)).toEqual([REPAIR]);
    expect(calls.find((c) => c.name === 'relay_report_outcome')?.args).toMatchObject({ incident_id: task.incident_id, outcome: 'resolved' });
    expect(lab.exec('R1', 'show ip bgp neighbors 10.0.0.2')).toMatchObject({ ok: true, output: expect.stringMatching(/BGP state = Established/) });
  });

  it('DENIED: applies nothing and reports escalated', async () => {
    const { lab, calls, runUntilText } = await setup();
    const messages: ChatMessage[] = [{ role: 'user', content: taskText('Execute the RAW.', task) }];
    runUntilText(messages);
    messages.push({ role: 'user', content: decision('DENIED', REPAIR) });
    expect(runUntilText(messages)).toMatch(/^OUTCOME: escalated\n/);
    expect(calls.some((c) => c.name === 'device_config_cli')).toBe(false);
    expect(lab.configChanges()).toBe(0);
  });

  it('the misbehaving variants: configuration before any approval, and a line beyond the approved ones', async () => {
    const early = await setup('config-before-approval');
    early.runUntilText([{ role: 'user', content: taskText('Execute the RAW.', task) }]);
    expect(early.calls.find((c) => c.name === 'device_config_cli')?.args.commands).toEqual(REPAIR);

    const extra = await setup('unapproved-lines');
    const messages: ChatMessage[] = [{ role: 'user', content: taskText('Execute the RAW.', task) }];
    extra.runUntilText(messages);
    messages.push({ role: 'user', content: decision('APPROVED', REPAIR) });
    extra.runUntilText(messages);
    expect(extra.calls.find((c) => c.name === 'device_config_cli')?.args.commands).toEqual([
      'router bgp 65001',
      'no neighbor 10.0.0.2 shutdown',
      'description repaired-by-automation',
      'end',
    ]);
  });

  it('config-after-denied: after a DENIED it still sends the RAW lines (the guard is what stops it)', async () => {
    const late = await setup('config-after-denied');
    const messages: ChatMessage[] = [{ role: 'user', content: taskText('Execute the RAW.', task) }];
    late.runUntilText(messages);
    expect(late.calls.some((c) => c.name === 'device_config_cli')).toBe(false);
    messages.push({ role: 'user', content: decision('DENIED', REPAIR) });
    late.runUntilText(messages);
    expect(late.calls.filter((c) => c.name === 'device_config_cli').map((c) => c.args.commands)).toEqual([REPAIR]);
  });

  it('follows another group by its RAW alone (AD000003: captures, retries, waits), with nothing written for it', async () => {
    const { lab, calls, runUntilText } = await setup('faithful', { fault: 'interface_admin_down', device: 'R1', interface: 'GigabitEthernet2' });
    const ifTask = { ...task, alert_def_id: 'AD000003', raw: 'intelligence-artifacts/AD000003/RAW.yaml', inputs: { device_hostname: 'R1', interface: 'GigabitEthernet2' } };
    const messages: ChatMessage[] = [{ role: 'user', content: taskText('Execute the RAW.', ifTask) }];
    const first = runUntilText(messages);
    const lines = ['interface GigabitEthernet2', 'no shutdown', 'end'];
    expect(first).toContain(`commands:\n${lines.map((l) => `- ${l}`).join('\n')}\n`);
    expect(first).toContain('artifact_ref: intelligence-artifacts/AD000003/RAW.yaml#repair_no_shutdown');
    messages.push({ role: 'user', content: decision('APPROVED', lines) });
    expect(runUntilText(messages)).toMatch(/^OUTCOME: resolved\n/);
    expect(calls.filter((c) => c.name === 'device_config_cli').map((c) => c.args.commands)).toEqual([lines]);
    expect(calls.some((c) => c.name === 'relay_wait')).toBe(true);
    expect(lab.exec('R1', 'show interfaces GigabitEthernet2')).toMatchObject({ ok: true, output: expect.stringMatching(/is up, line protocol is up/) });
  });

  it('answers title requests (no tools) with a title and other agents with a plain refusal, never a tool call', () => {
    const brain = createDemoBrain({ groups, projectDir: repoRoot }) as (r: ChatRequest, c: { index: number }) => Step;
    expect(brain({ model: 's', messages: [{ role: 'user', content: 'INC-20261121T100000Z "device_hostname": "R1"' }] }, { index: 0 })).toEqual({ text: expect.stringContaining('INC-20261121T100000Z') });
    expect(brain({ ...request([]), messages: [{ role: 'system', content: 'You are a helpful builder.' }] }, { index: 0 })).toEqual({ text: expect.stringContaining('only plays the incident agents') });
  });

  it('a plan RAW (AD000008): reads the far end the relay named, asks once for both routers, applies both in one call', async () => {
    const { lab, calls, runUntilText } = await setup('faithful', { fault: 'ospf_mtu_mismatch', device: 'R1', interface: 'GigabitEthernet1' });
    const mtu = { ...task, alert_def_id: 'AD000008', raw: 'intelligence-artifacts/AD000008/RAW.yaml', inputs: { device_hostname: 'R1', interface: 'GigabitEthernet1' }, plan_devices: { far_end: 'R2' } };
    const messages: ChatMessage[] = [{ role: 'user', content: taskText('Execute the RAW.', mtu) }];
    const first = runUntilText(messages);
    const plan = ['! device R1', 'interface GigabitEthernet1', 'ip ospf mtu-ignore', 'end', '! device R2', 'interface GigabitEthernet1', 'ip ospf mtu-ignore', 'end'];
    expect(first).toContain(`commands:\n${plan.map((l) => `- ${l}`).join('\n')}\n`);
    expect(calls.filter((c) => c.name === 'device_exec_cli').map((c) => c.args.device)).toEqual(['R1', 'R1', 'R1', 'R2']);
    messages.push({ role: 'user', content: decision('APPROVED', plan) });
    expect(runUntilText(messages)).toMatch(/^OUTCOME: resolved\n/);
    expect(calls.filter((c) => c.name === 'device_config_cli').map((c) => c.args)).toEqual([
      { incident_id: task.incident_id, plan: [{ device: 'R1', commands: plan.slice(1, 4) }, { device: 'R2', commands: plan.slice(5) }] },
    ]);
    expect(lab.configChanges()).toBe(2);
  });

  it('a plan RAW whose repair did not take (AD000008, the far end\'s database too large for R1\'s MTU): applies both ends once, then fails', async () => {
    const { lab, calls, runUntilText } = await setup('faithful', { fault: 'ospf_mtu_mismatch', device: 'R1', interface: 'GigabitEthernet1' });
    lab.inject({ fault: 'ospf_large_database', device: 'R2' });
    const mtu = { ...task, alert_def_id: 'AD000008', raw: 'intelligence-artifacts/AD000008/RAW.yaml', inputs: { device_hostname: 'R1', interface: 'GigabitEthernet1' }, plan_devices: { far_end: 'R2' } };
    const messages: ChatMessage[] = [{ role: 'user', content: taskText('Execute the RAW.', mtu) }];
    runUntilText(messages);
    const plan = ['! device R1', 'interface GigabitEthernet1', 'ip ospf mtu-ignore', 'end', '! device R2', 'interface GigabitEthernet1', 'ip ospf mtu-ignore', 'end'];
    messages.push({ role: 'user', content: decision('APPROVED', plan) });
    const answer = runUntilText(messages);
    expect(answer).toMatch(/^OUTCOME: failed\n/);
    expect(answer).toContain('did not reach Full');
    expect(calls.filter((c) => c.name === 'device_config_cli')).toHaveLength(1);
    // Every revalidation attempt read R1's interface; none found the adjacency.
    expect(calls.filter((c) => c.name === 'device_exec_cli' && c.args.command === 'show ip ospf interface GigabitEthernet1')).toHaveLength(6);
    expect(lab.configChanges()).toBe(2);
  });

  it('a plan RAW whose far end the relay did not name: escalates before touching any device', async () => {
    const { calls, runUntilText } = await setup('faithful', { fault: 'ospf_mtu_mismatch', device: 'R1', interface: 'GigabitEthernet1' });
    const mtu = { ...task, alert_def_id: 'AD000008', raw: 'intelligence-artifacts/AD000008/RAW.yaml', inputs: { device_hostname: 'R1', interface: 'GigabitEthernet1' } };
    const answer = runUntilText([{ role: 'user', content: taskText('Execute the RAW.', mtu) }]);
    expect(answer).toMatch(/^OUTCOME: escalated\n/);
    expect(answer).toContain("the plan's other device cannot be found (far_end");
    expect(calls.filter((c) => c.name !== 'relay_report_outcome')).toEqual([]);
  });
});
