import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Logger } from 'pino';
import { ApprovalError, type Approvals } from '../../core/approvals/approvals';
import type { OperatorChannel } from '../../core/approvals/operator-channel';
import { AGENT_MESSAGE_LABEL } from '../../core/approvals/inert-text';
import { isTerminal } from '../../core/incidents/model';
import type { Incidents } from '../../core/incidents/service';
import type { Clock } from '../../core/clock';
import type { IncidentEvent } from '../../core/incidents/state';
import { previewBeforeApproval, type PreviewConfig } from '../device-tools/approval-preview';
import { preparePlan } from '../device-tools/plan-request';
import type { FoundDevice } from '../../runbooks/plan-devices';
import { quarantineLine, type QuarantineEntry } from '../../core/quarantine/entry';
import { CHANGE_WORDS_TITLE, changeWords, withoutConfigClaims } from '../../core/incidents/outcome-words';
import { traceToolCalls } from '../telemetry/traced-tools';
import { entries } from '../../core/events/timeline-entries';

/** The timeline entry of each kind of message the agents post. */
const NOTIFY = { 'fault-received': entries.notifyFaultReceived, 'step-progress': entries.notifyStepProgress, final: entries.notifyFinal } as const;

/** The incident event each outcome the agent reports is (src/core/incidents/state.ts). */
const OUTCOME_EVENT = { resolved: 'resolve', escalated: 'escalate', failed: 'fail' } as const satisfies Record<string, IncidentEvent>;

export interface RelayToolsDeps {
  clock: Clock;
  incidents: Incidents;
  approvals: Approvals;
  /** The operator channels a notice goes to (all of them). */
  channels: readonly OperatorChannel[];
  logger: Logger;
  /** The device tools' dry run; without it approval requests carry no preview. */
  preview?: PreviewConfig;
  /** The device's quarantine as last read: every notice about a quarantined device says so. */
  quarantined?(device: string): QuarantineEntry | undefined;
  /** The other devices the incident's RAW lets a plan change (found from the alert and the inventory). */
  planDevices?(incidentId: string): Promise<FoundDevice[]>;
}

const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
});
const refuse = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

const incidentId = z.string().min(1).max(64).describe('incident_id from the alert prompt');

/**
 * The longest `wait` call. The agents have no shell, so RAW waits are the relay's; a call must end
 * before the relay's HTTP server closes an idle connection (connectionTimeout, 60 s) and before
 * opencode's MCP timeout for `relay` (opencode.json; a test holds the two together).
 */
export const WAIT_MAX_S = 50;

/**
 * The only way the agents reach the operator. Because every approval goes through
 * here, the relay always knows when one is pending and can raise it everywhere.
 */
export function createRelayToolsServer(deps: RelayToolsDeps): McpServer {
  const { incidents, approvals, channels, logger, clock } = deps;
  const server = traceToolCalls(new McpServer(
    { name: 'fault-relay', version: '1.0.0' },
    { instructions: 'Operator channel of the fault relay: notify the room, request approvals, report the outcome, wait between RAW steps.' },
  ), incidents.get);

  server.registerTool(
    'notify',
    {
      title: 'Notify the operators',
      description: 'Posts a Markdown message to the operators\' room and the incident timeline. kind: fault-received (after loading artifacts and KB), step-progress (after each RAW step), final (after the outcome).',
      inputSchema: {
        incident_id: incidentId,
        kind: z.enum(['fault-received', 'step-progress', 'final']),
        markdown: z.string().min(1).max(20_000),
      },
    },
    async ({ incident_id, kind, markdown: given }) => {
      const incident = incidents.get(incident_id);
      if (!incident) return refuse(`unknown incident ${incident_id}: use the incident_id from the alert prompt`);
      // The final message says how the change ended from the relay's record, in the relay's own words
      // outside the agent's quote; the model's claims about it are left out of what it wrote.
      const said = kind === 'final' ? withoutConfigClaims(given).text : given;
      const record = kind === 'final' ? `**${CHANGE_WORDS_TITLE}:** ${changeWords(incident)}` : undefined;
      incidents.record(incident_id, NOTIFY[kind], (record ? `${said}\n\n${record}` : said).slice(0, 2000), { kind });
      if (channels.length === 0) return text({ posted: false, recorded: true, note: 'No operator room is configured; the message is in the incident timeline.' });
      const held = deps.quarantined?.(incident.device_hostname);
      const header = `**${incident_id}** · ${kind}${held ? `\n\n⛔ ${quarantineLine(held)}` : ''}${record ? `\n\n${record}` : ''}`;
      const results = await Promise.allSettled(channels.map((c) => c.tell(header, { label: AGENT_MESSAGE_LABEL, text: said })));
      const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [`${channels[i]!.name}: ${(r.reason as Error).message}`] : []));
      if (failed.length === 0) return text({ posted: true, recorded: true });
      logger.error({ incident_id, failed }, 'notify could not post to the room');
      return refuse(`the room did not take the message (${channels.length > 1 ? failed.join('; ') : failed[0]!.replace(/^[^:]*: /, '')}); it is in the incident timeline`);
    },
  );

  server.registerTool(
    'request_approval',
    {
      title: 'Request an operator approval',
      description:
        'Before ANY config_cli action: asks the human operator to approve the exact configuration lines. Returns pending with its request_id (stop and wait for the HUMAN OPERATOR RESPONSE or, in a headed run, the operator\'s typed APPROVED or DENIED: the relay shows the request to the operator itself) or skipped_with_warning (no channel: the decision is in the result). The device must be the incident\'s own.',
      inputSchema: {
        incident_id: incidentId,
        summary: z.string().min(1).max(4000).describe('What is wrong and what the change does, for the operator'),
        device: z.string().min(1).optional(),
        commands: z.array(z.string().min(1)).min(1).max(200).optional().describe('Exact configuration lines, in order'),
        rollback: z.array(z.string().min(1)).max(200).optional(),
        artifact_ref: z.string().max(300).optional().describe('The RAW step this change comes from'),
        plan: z
          .array(z.strictObject({ device: z.string().min(1).max(253), commands: z.array(z.string().min(1)).min(1).max(200), rollback: z.array(z.string().min(1)).max(200).optional() }))
          .min(2)
          .max(8)
          .optional()
          .describe("A change on several devices, approved once and applied on all or none: each device the incident's own or one its RAW names (instead of device, commands and rollback)"),
      },
    },
    async ({ plan, ...one }) => {
      try {
        if (plan) {
          if (one.device !== undefined || one.commands !== undefined || one.rollback !== undefined) return refuse('give either plan, or device and commands, not both');
          const prepared = await preparePlan({ incidents, logger, preview: deps.preview, planDevices: deps.planDevices }, { ...one, plan });
          if (!prepared.ok) return refuse(prepared.refusal);
          const answer = await approvals.request(prepared.input);
          return text(answer.status === 'pending' ? { ...answer, devices: prepared.input.plan!.map((e) => e.device) } : answer);
        }
        if (one.device === undefined || one.commands === undefined) return refuse('give device and commands (or plan, for a change on several devices)');
        const input = { ...one, device: one.device, commands: one.commands };
        const dry = await previewBeforeApproval({ incidents, logger, preview: deps.preview }, input);
        if (!dry.ok) return refuse(dry.refusal);
        return text(await approvals.request({ ...input, preview: dry.preview }));
      } catch (error) {
        if (error instanceof ApprovalError) return refuse(error.message);
        throw error;
      }
    },
  );

  server.registerTool(
    'report_outcome',
    {
      title: 'Report the outcome of the run',
      description: 'Ends the incident: resolved, escalated or failed, with a summary. Call once, then send the final notification.',
      inputSchema: {
        incident_id: incidentId,
        outcome: z.enum(['resolved', 'escalated', 'failed']),
        summary: z.string().min(1).max(8000),
      },
    },
    async ({ incident_id, outcome, summary }) => {
      const incident = incidents.get(incident_id);
      if (!incident) return refuse(`unknown incident ${incident_id}: use the incident_id from the alert prompt`);
      if (isTerminal(incident.state)) {
        return refuse(`${incident_id} already ended as ${incident.state} at ${incident.outcome?.at ?? incident.updated_at}; a second outcome is refused`);
      }
      if (incident.state === 'awaiting_approval') {
        return refuse(`${incident_id} is awaiting an operator decision; wait for the HUMAN OPERATOR RESPONSE before reporting an outcome`);
      }
      if (incident.state === 'queued') return refuse(`${incident_id} has not started yet`);
      const event = OUTCOME_EVENT[outcome];
      if (!incidents.can(incident_id, event)) return refuse(`${incident_id} is ${incident.state}; it cannot end as ${outcome} now`);
      const at = clock.now().toISOString();
      // What became of the configuration is the change record's to say (shown beside the outcome everywhere), not the summary's.
      const { text: kept, removed } = withoutConfigClaims(summary);
      incidents.transition(incident_id, event, () => ({ outcome: { kind: outcome, summary: kept, at, by: 'agent' } }));
      incidents.record(incident_id, entries.outcomeReported, `${outcome}: ${kept.slice(0, 1000)}`, { outcome });
      if (removed.length) {
        incidents.record(incident_id, entries.outcomeClaimsRemoved, `${removed.length} sentence(s) about what became of the configuration left out of the reported outcome: the relay's change record says how the change ended`, { removed: removed.length });
      }
      logger.info({ incident_id, outcome, change: changeWords(incidents.get(incident_id) ?? incident) }, 'outcome reported');
      return text({ recorded: true, state: outcome });
    },
  );

  server.registerTool(
    'wait',
    {
      title: 'Wait',
      description: `Waits the given seconds (a RAW wait or retry interval), at most ${WAIT_MAX_S} per call: split a longer wait into several calls. Refused for an unknown or ended incident.`,
      inputSchema: { incident_id: incidentId, seconds: z.number().min(0).max(WAIT_MAX_S) },
    },
    async ({ incident_id, seconds }, extra) => {
      const incident = incidents.get(incident_id);
      if (!incident) return refuse(`unknown incident ${incident_id}: use the incident_id from the alert prompt`);
      if (isTerminal(incident.state)) return refuse(`${incident_id} already ended as ${incident.state}; there is nothing to wait for`);
      await new Promise<void>((resolve) => {
        const timer = clock.setTimeout(resolve, seconds * 1000);
        // The runtime gave up on the call (aborted run, MCP timeout): stop holding it.
        extra.signal.addEventListener('abort', () => (timer.cancel(), resolve()), { once: true });
      });
      return text({ waited_s: seconds, state: incidents.get(incident_id)?.state ?? incident.state });
    },
  );

  return server;
}
