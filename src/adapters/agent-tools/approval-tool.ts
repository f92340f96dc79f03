import { z } from 'zod';
import { ApprovalError } from '../../core/approvals/approvals';
import { previewBeforeApproval } from '../device-tools/approval-preview';
import { preparePlan } from '../device-tools/plan-request';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RelayToolsDeps } from './relay-tools';
import { incidentId, refuse, text } from './tool-results';

/** `request_approval`: the agents' ask before any change, on one device or as a plan on several. */
export function registerRequestApproval(server: McpServer, deps: RelayToolsDeps): void {
  const { incidents, approvals, logger } = deps;
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
}
