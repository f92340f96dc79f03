import type { Step } from '../scripted-model';
import type { Conversation } from './conversation';
import { notifyTaskSchema, readTask } from './messages';

/** msg-notify: the actions the task lists, one call at a time in order, then one line per call. */
export function planMsgNotify(conversation: Conversation): Step {
  const task = readTask(notifyTaskSchema, conversation.users[0]?.text);
  if (!task) return { text: 'error the task prompt lists no relay_notify / relay_request_approval action' };
  const done = conversation.exchanges.filter((e) => e.name === 'relay_notify' || e.name === 'relay_request_approval');
  const next = task.actions[done.length];
  if (next) return { toolCalls: [{ name: next.tool, arguments: next.arguments }] };
  return { text: done.map((e) => summarize(e.name, e.args, e.result ?? '')).join('\n') };
}

function summarize(tool: string, args: Record<string, unknown>, result: string): string {
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(result) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  if (tool === 'relay_notify') {
    const state = json ? (json.posted ? 'posted' : json.recorded ? 'recorded' : 'error') : 'error';
    return `relay_notify ${String(args.kind)}: ${state}${state === 'error' ? ` ${result.slice(0, 300)}` : ''}`;
  }
  switch (json?.status) {
    case 'pending':
      return `relay_request_approval: pending (expires_at ${String(json.expires_at)})`;
    // Held by the relay (the device busy or quarantined): it asks itself later, and the decision comes as a HUMAN OPERATOR RESPONSE.
    case 'held':
      return `relay_request_approval: held (${String(json.device)}: ${JSON.stringify(json.waiting_for)})`;
    case 'skipped_with_warning':
      return `relay_request_approval: skipped_with_warning decision=${String(json.decision)} (${String(json.warning)})`;
    default:
      return `relay_request_approval: error ${result.slice(0, 300)}`;
  }
}
