import type { Step } from '../scripted-model';
import type { Conversation } from './conversation';
import { kbTaskSchema, readTask, type KbTask } from './messages';

/** kb-reader's two queries, worded as its prompt says. */
export function kbQueries(task: KbTask): string[] {
  const first = [task.alert_def_id, task.device_hostname, task.neighbor_ip ?? task.interface, task.vrf_name, 'maintenance window change record known issue'];
  return [first.filter(Boolean).join(' '), `approval policy escalation path SLA ${task.device_hostname} ${task.vrf_name || 'transit'}`];
}

/**
 * kb-reader: the two `kb_wiki_query` calls one after the other, then the context and a verdict.
 * The scripted verdict is PROCEED whenever the KB answered; a real model weighs the windows.
 */
export function planKbReader(conversation: Conversation): Step {
  const task = readTask(kbTaskSchema, conversation.users[0]?.text);
  if (!task) return { text: 'KB VERDICT: ESCALATE — the task prompt carries no incident to look up' };
  const queries = kbQueries(task);
  const done = conversation.exchanges.filter((e) => e.name === 'kb_wiki_query');
  const nextQuery = queries[done.length];
  if (nextQuery !== undefined) return { toolCalls: [{ name: 'kb_wiki_query', arguments: { query: nextQuery, depth: task.kb_query_mode } }] };

  const answers = done.map((e) => e.result ?? '');
  if (answers.some((a) => !/result\(s\)/.test(a) || /\b0 result\(s\)/.test(a))) return { text: 'KB VERDICT: ESCALATE — KB context missing' };
  const all = answers.join('\n');
  const sources = [...new Set(all.match(/kb\/[\w./-]+\.md/g) ?? [])];
  const knownIssues = [...new Set(all.match(/KI-\d{4}/g) ?? [])];
  const changes = [...new Set(all.match(/CHG-\d{4}-\d+/g) ?? [])];
  return {
    text: [
      'KB VERDICT: PROCEED',
      `maintenance: ${changes.length ? `change records seen: ${changes.join(', ')}; none is in its window for ${task.device_hostname} ${task.neighbor_ip ?? ''} at ${eventTime(task.event_time)} (scripted check)` : 'none applies'}`,
      `known issues: ${knownIssues.length ? knownIssues.join(', ') : 'none'}`,
      'approval: per kb/policies/approval-policy.md (transit BGP neighbor without change record: SC-BGP-01, Tier 1 NOC on-call)',
      'escalation: per kb/policies/escalation-path.md',
      'sla: per kb/policies/sla.md',
      'history: see kb/incidents/incident-history.md',
      `sources: ${sources.join(', ') || 'none'}`,
    ].join('\n'),
  };
}

/** `_time` is epoch seconds in Splunk alerts; shown as UTC. */
function eventTime(value: string | undefined): string {
  if (!value) return 'the incident time';
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : value;
}
