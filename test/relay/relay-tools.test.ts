import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { captureLogger } from '../helpers/capture-logger';
import { connectMcp } from '../helpers/mcp-client';
import { createStubRuntime } from '../helpers/stub-runtime';
import { ad000002, relayForTest } from '../helpers/relay';
import { decideAs } from '../helpers/decide-as';

let relay: Relay | undefined;
let mcp: Awaited<ReturnType<typeof connectMcp>> | undefined;
afterEach(async () => {
  await mcp?.close();
  await relay?.close();
  relay = undefined;
  mcp = undefined;
});

async function setUp(env: Record<string, string> = {}, room?: Parameters<typeof relayForTest>[0]['room']) {
  const log = captureLogger();
  const agent = createStubRuntime();
  relay = await relayForTest({ agent, env: { RELAY_TOOLS_TOKEN: 'tools-secret', ...env }, logger: log.logger, room });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  mcp = await connectMcp(`${url}/mcp`, 'tools-secret');
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
  return { log, agent, url, incidentId: res.json().incident_id as string };
}

const approvalArgs = (incident_id: string) => ({ incident_id, summary: 'neighbor admin down', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });

describe('relay tools over MCP', () => {
  it('lists exactly notify, request_approval, report_outcome and wait, and refuses a wrong token', async () => {
    const { url } = await setUp();
    const tools = await mcp!.client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['notify', 'report_outcome', 'request_approval', 'wait']);
    await expect(connectMcp(`${url}/mcp`, 'wrong')).rejects.toThrow();
  });

  it('APPROVAL_WHEN_UNATTENDED=approve with no channel: treated as approved, loud in the logs, the timeline and /health', async () => {
    const { log, incidentId } = await setUp({ APPROVAL_WHEN_UNATTENDED: 'approve' });
    const result = await mcp!.call('request_approval', approvalArgs(incidentId));
    expect(result.isError).toBe(false);
    expect(result.json).toMatchObject({ status: 'skipped_with_warning', decision: 'APPROVED', warning: expect.stringMatching(/No approval channel/) });
    const health = (await relay!.app.inject({ url: '/health' })).json();
    expect(health.warnings).toEqual([expect.stringMatching(/APPROVAL_WHEN_UNATTENDED=approve.*without a human/)]);
    const incident = relay!.incidents.get(incidentId)!;
    expect(incident.approval).toMatchObject({ decision: 'SKIPPED', effective: 'APPROVED', channel: 'unattended' });
    expect(incident.warnings.join()).toMatch(/approval_skipped/);
    expect(relay!.incidents.timeline(incidentId).map((e) => e.type)).toContain('approval.skipped');
    expect(log.lines.some((l) => JSON.parse(l).level === 40 && /approval skipped/.test(l) && l.includes(incidentId))).toBe(true);
  });

  it('by default, no channel means a denial: nothing can be applied', async () => {
    const { incidentId } = await setUp();
    const result = await mcp!.call('request_approval', approvalArgs(incidentId));
    expect(result.json).toMatchObject({ status: 'skipped_with_warning', decision: 'DENIED' });
    expect(relay!.incidents.get(incidentId)?.approval_request?.status).toBe('denied');
  });

  it('refuses unknown incidents, wrong states and a second outcome, changing nothing', async () => {
    const posted: string[] = [];
    const room = { postMarkdown: async (m: string) => void posted.push(m), postCard: async () => ({ id: 'msg-1' }) };
    const { incidentId } = await setUp({}, room);
    const unknown = await mcp!.call('request_approval', approvalArgs('INC-20000101T000000Z'));
    expect(unknown).toMatchObject({ isError: true, text: expect.stringMatching(/unknown incident/) });

    expect((await mcp!.call('request_approval', approvalArgs(incidentId))).json?.status).toBe('pending');
    const again = await mcp!.call('request_approval', approvalArgs(incidentId));
    expect(again).toMatchObject({ isError: true, text: expect.stringMatching(/already awaiting approval/) });
    const early = await mcp!.call('report_outcome', { incident_id: incidentId, outcome: 'resolved', summary: 'done' });
    expect(early).toMatchObject({ isError: true, text: expect.stringMatching(/awaiting an operator decision/) });
    expect(relay!.incidents.get(incidentId)?.state).toBe('awaiting_approval');

    await decideAs(relay!, incidentId, 'APPROVED', 'alice@example.net');
    const first = await mcp!.call('report_outcome', { incident_id: incidentId, outcome: 'resolved', summary: 'neighbor Established' });
    expect(first.json).toEqual({ recorded: true, state: 'resolved' });
    const second = await mcp!.call('report_outcome', { incident_id: incidentId, outcome: 'failed', summary: 'oops' });
    expect(second).toMatchObject({ isError: true, text: expect.stringMatching(/already ended as resolved/) });
    expect(relay!.incidents.get(incidentId)?.outcome).toMatchObject({ kind: 'resolved', summary: 'neighbor Established' });
  });

  it("a claim about the configuration in the outcome or the final message is left out; the relay's record is said instead", async () => {
    const posted: string[] = [];
    const room = { postMarkdown: async (m: string) => void posted.push(m), postCard: async () => ({ id: 'msg-1' }) };
    const { incidentId } = await setUp({}, room);
    relay!.incidents.update(incidentId, () => ({
      change: { change_id: 'chg-1', device: 'R1', state: 'rolled_back', deadline: 'd', confirm_within_s: 120, applied_at: 'a', ended_at: 'e', ended_by: 'post_check_failed', person: null, detail: null },
    }));
    const claim = 'The session did not reach Established. The configuration change remains in place.';
    expect((await mcp!.call('report_outcome', { incident_id: incidentId, outcome: 'failed', summary: claim })).json).toEqual({ recorded: true, state: 'failed' });
    expect(relay!.incidents.get(incidentId)?.outcome?.summary).toBe('The session did not reach Established.');
    expect(relay!.incidents.timeline(incidentId).map((e) => e.type)).toContain('outcome.claims_removed');

    await mcp!.call('notify', { incident_id: incidentId, kind: 'final', markdown: `**failed**\n\n${claim}` });
    const final = posted.at(-1)!;
    expect(final).not.toMatch(/remains in place/);
    // In the relay's own words, outside the quote of the agent's message.
    expect(final).toMatch(/^\*\*Configuration change \(the relay's record\):\*\* Configuration change on R1: rolled back: post-check failed\.$/m);
  });

  it('notify posts to the room and lands in the timeline; an invented headed id is refused', async () => {
    const posted: string[] = [];
    const room = { postMarkdown: async (m: string) => void posted.push(m), postCard: async () => ({ id: 'msg-1' }) };
    const { incidentId } = await setUp({}, room);
    const note = await mcp!.call('notify', { incident_id: incidentId, kind: 'fault-received', markdown: 'Loaded FS/RAW/RG for AD000002' });
    expect(note.json).toEqual({ posted: true, recorded: true });
    expect(posted.at(-1)).toContain('Loaded FS/RAW/RG');
    expect(relay!.incidents.timeline(incidentId).map((e) => e.type)).toContain('notify.fault-received');
    // The agent's Markdown is quoted under the relay's label: it cannot post a heading or a code block as the relay.
    await mcp!.call('notify', { incident_id: incidentId, kind: 'step-progress', markdown: 'done\r## Change outcome: confirmed\n```\nrouter bgp 65001\n```' });
    const [head, ...rest] = posted.at(-1)!.split(/\r\n|\r|\n/);
    expect(head).toBe(`**${incidentId}** · step-progress`);
    expect(rest.slice(0, 2)).toEqual(['', "**The agent's message (its own words, not checked by the relay):**"]);
    expect(rest.slice(3)).toEqual(['> done\\\\u{000D}\\#\\# Change outcome: confirmed', '> \\`\\`\\`', '> router bgp 65001', '> \\`\\`\\`']);
    const invented = await mcp!.call('request_approval', approvalArgs('HEADED-20261121T100000Z'));
    expect(invented).toMatchObject({ isError: true, text: expect.stringMatching(/unknown incident HEADED-20261121T100000Z/) });
    expect(relay!.incidents.get('HEADED-20261121T100000Z')).toBeUndefined();
  });
});
