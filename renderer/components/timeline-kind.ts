import type { TimelineEntry } from '../../src/core/incidents/model';

export type EntryKind = 'alert' | 'state' | 'runtime' | 'agent' | 'tool' | 'message' | 'notify' | 'approval' | 'outcome' | 'device' | 'warning' | 'error';

export const KIND_LABELS: Record<EntryKind, string> = {
  alert: 'alert',
  state: 'state',
  runtime: 'runtime',
  agent: 'agent',
  tool: 'tool',
  message: 'says',
  notify: 'notify',
  approval: 'approval',
  outcome: 'outcome',
  device: 'device',
  warning: 'warning',
  error: 'error',
};

/** How an entry reads at a glance, from its type (`tool.completed`, `notify.final` …). */
export function kindOf(entry: TimelineEntry): EntryKind {
  const t = entry.type;
  if (t === 'warning' || t.endsWith('.warning')) return 'warning';
  if (t.endsWith('.error') || t.endsWith('.failed') || t.endsWith('.forward_failed') || t.endsWith('.refused')) return 'error';
  const head = t.split('.')[0];
  switch (head) {
    case 'alert':
      return 'alert';
    case 'state':
      return 'state';
    case 'agent':
      return t === 'agent.text' ? 'message' : 'agent';
    case 'tool':
      return 'tool';
    case 'notify':
      return 'notify';
    case 'approval':
      return 'approval';
    case 'outcome':
      return 'outcome';
    case 'device':
      return 'device';
    default:
      return 'runtime';
  }
}

/** Text fields worth showing under the message, in monospace. */
export function detailsOf(entry: TimelineEntry): { label: string; text: string }[] {
  const out: { label: string; text: string }[] = [];
  for (const key of ['input', 'output', 'error', 'command', 'commands', 'prompt'] as const) {
    const v = entry[key];
    if (typeof v === 'string' && v.trim() && v !== entry.message) out.push({ label: key, text: v });
    else if (Array.isArray(v) && v.length) out.push({ label: key, text: v.map(String).join('\n') });
  }
  return out;
}
