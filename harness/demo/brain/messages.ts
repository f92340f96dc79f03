import { z } from 'zod';
import { extractJson } from './conversation';

/**
 * What the scripted troubleshooter writes into its `task` prompts and the subagents read back:
 * an instruction line for a human (or a real model) reading the session, then one JSON object.
 */
export const kbTaskSchema = z.object({
  incident_id: z.string(),
  alert_def_id: z.string(),
  device_hostname: z.string(),
  neighbor_ip: z.string().optional(),
  vrf_name: z.string().optional(),
  interface: z.string().optional(),
  event_time: z.string().optional(),
  kb_query_mode: z.enum(['quick', 'standard', 'deep']),
});
export type KbTask = z.infer<typeof kbTaskSchema>;

export const remediationTaskSchema = z.object({
  incident_id: z.string(),
  alert_def_id: z.string(),
  device_hostname: z.string(),
  mode: z.enum(['strict', 'hybrid']),
  raw: z.string(),
  inputs: z.record(z.string(), z.string()),
  allowed_commands: z.array(z.string()).default([]),
  kb_constraints: z.string().default(''),
  /** The plan devices the relay named in the alert prompt, role → device. */
  plan_devices: z.record(z.string(), z.string()).default({}),
});
export type RemediationTask = z.infer<typeof remediationTaskSchema>;

/** The relay's HUMAN OPERATOR RESPONSE body (`src/core/approvals/human-response.ts`), the fields a brain uses. */
export const operatorResponseSchema = z.looseObject({
  incident_id: z.string(),
  decision: z.enum(['APPROVED', 'DENIED']),
  approved_commands: z.array(z.string()).default([]),
});

export const notifyActionSchema = z.discriminatedUnion('tool', [
  z.object({
    tool: z.literal('relay_notify'),
    arguments: z.object({ incident_id: z.string(), kind: z.enum(['fault-received', 'step-progress', 'final']), markdown: z.string() }),
  }),
  z.object({
    tool: z.literal('relay_request_approval'),
    arguments: z.object({
      incident_id: z.string(),
      summary: z.string(),
      device: z.string().optional(),
      commands: z.array(z.string()).optional(),
      rollback: z.array(z.string()).optional(),
      artifact_ref: z.string().optional(),
      plan: z.array(z.object({ device: z.string(), commands: z.array(z.string()), rollback: z.array(z.string()).optional() })).optional(),
    }),
  }),
]);
export const notifyTaskSchema = z.object({ actions: z.array(notifyActionSchema).min(1) });
export type NotifyAction = z.infer<typeof notifyActionSchema>;

export const ESCALATE_WITHOUT_DEVICE = 'ESCALATE WITHOUT DEVICE ACCESS:';
export const OPERATOR_RESPONSE = /HUMAN OPERATOR RESPONSE: (APPROVED|DENIED|EXPIRED)/;

export const taskText = (instruction: string, body: object) => `${instruction}\n${JSON.stringify(body, null, 2)}`;

/** The JSON of a task prompt, validated; undefined when it is missing or does not fit. */
export function readTask<T>(schema: z.ZodType<T>, text: string | undefined): T | undefined {
  const parsed = schema.safeParse(extractJson(text ?? ''));
  return parsed.success ? parsed.data : undefined;
}

/** `APPROVAL REQUIRED` as fault-remediation answers it (its prompt's format), read back by the troubleshooter. */
export interface ApprovalRequired {
  device: string;
  artifact_ref?: string;
  summary: string;
  commands: string[];
  rollback: string[];
  steps: string[];
}

export function parseApprovalRequired(text: string): ApprovalRequired | undefined {
  if (!/^\s*APPROVAL REQUIRED\b/m.test(text)) return undefined;
  const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'm').exec(text)?.[1]?.trim();
  const list = (name: string) => {
    const m = new RegExp(`^${name}:\\s*\\n((?:- .*(?:\\n|$))+)`, 'm').exec(text);
    return m ? m[1]!.split('\n').filter((l) => l.startsWith('- ')).map((l) => l.slice(2).trim()) : [];
  };
  const device = field('device');
  const summary = field('summary');
  const commands = list('commands');
  if (!device || !summary || commands.length === 0) return undefined;
  return { device, summary, commands, rollback: list('rollback'), steps: list('steps'), artifact_ref: field('artifact_ref') };
}

export function parseOutcome(text: string): { outcome: 'resolved' | 'escalated' | 'failed'; summary: string; changed: string } | undefined {
  const m = /^\s*OUTCOME:\s*(resolved|escalated|failed)\b/m.exec(text);
  if (!m) return undefined;
  return {
    outcome: m[1] as 'resolved' | 'escalated' | 'failed',
    summary: /^summary:\s*(.+)$/m.exec(text)?.[1]?.trim() ?? '',
    changed: /^changed on device:\s*(.+)$/m.exec(text)?.[1]?.trim() ?? 'unknown',
  };
}
