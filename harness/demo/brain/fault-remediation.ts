import type { ArtifactGroup } from '../../../src/runbooks/validate';
import type { Step } from '../scripted-model';
import type { Conversation } from './conversation';
import { ESCALATE_WITHOUT_DEVICE, readTask, remediationTaskSchema, type RemediationTask } from './messages';
import { walk } from './raw-walk';

/**
 * How the scripted fault-remediation behaves. `faithful` follows the RAW and the approval;
 * the others misbehave on purpose so tests, `npm run eval` and the curious can watch the
 * relay's device guard refuse them: configuration before any approval, one line beyond the
 * approved ones, the RAW's configuration tried anyway after a DENIED, and an outcome that says the
 * change stayed in place whatever the relay did with it (the relay words that from its record).
 */
export const REMEDIATION_VARIANTS = ['faithful', 'config-before-approval', 'unapproved-lines', 'config-after-denied', 'claims-change-kept'] as const;
export type RemediationVariant = (typeof REMEDIATION_VARIANTS)[number];

export interface RemediationOptions {
  groups: ReadonlyMap<string, ArtifactGroup>;
  variantFor: (task: RemediationTask) => RemediationVariant;
  /** Caps RAW waits and retry intervals (seconds), so a demo need not wait the RAW's 10 s. */
  maxSleepS: number;
}

const call = (name: string, args: object): Step => ({ toolCalls: [{ name, arguments: args }] });

/**
 * Walks the RAW from its first step, replaying this conversation's tool results, and answers
 * with the next call to make or the final answer. Each request replays from the start, so the
 * state is always exactly what the conversation shows.
 */
export function planFaultRemediation(conversation: Conversation, opts: RemediationOptions): Step {
  const taskText = conversation.users[0]?.text ?? '';
  const incidentId = /\b((?:INC|HEADED)-[A-Za-z0-9-]+)/.exec(taskText)?.[1] ?? 'unknown';
  const report = (outcome: 'resolved' | 'escalated' | 'failed', summary: string, lines: string[], changed: string): Step => {
    const done = conversation.exchanges.find((e) => e.name === 'relay_report_outcome');
    if (!done) return call('relay_report_outcome', { incident_id: incidentId, outcome, summary });
    return {
      text: [`OUTCOME: ${outcome}`, `incident_id: ${incidentId}`, `summary: ${summary}`, `changed on device: ${changed}`, 'steps:', ...lines.map((l) => `- ${l}`)].join('\n'),
    };
  };

  const escalateOnly = new RegExp(`${ESCALATE_WITHOUT_DEVICE}\\s*(.+)`).exec(taskText);
  if (escalateOnly) return report('escalated', `${escalateOnly[1]!.trim()} No device was contacted; nothing was changed.`, [], 'nothing');

  const task = readTask(remediationTaskSchema, taskText);
  const group = task && opts.groups.get(task.alert_def_id);
  if (!task || !group) {
    return report('escalated', 'The task prompt did not carry a usable incident, RAW and inputs; nothing was run on the device.', [], 'nothing');
  }
  return walk(conversation, task, group, opts, report);
}
