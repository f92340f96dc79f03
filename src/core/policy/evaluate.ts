import { isCelError } from '@bufbuild/cel';
import type { LoadedPolicy } from './load';
import { openWindow } from './change-windows';
import type { Verdict } from './schema';
import { instantOf, withinHours } from './zoned-time';

/** What a verdict is computed from: the normalized alert, the device's inventory entry, the lines, the time. */
export interface PolicyContext {
  alert: { alert_def_id: string; device: string; severity?: string | null; vars: Record<string, string> };
  device: { name: string; platform?: string; tags?: Record<string, string> };
  lines: string[];
  at: Date;
}

/** CEL sees maps and lists: the alert's own fields and every alert variable side by side. */
function bindings(ctx: PolicyContext) {
  const alert = new Map<string, unknown>(Object.entries({ ...ctx.alert.vars, alert_def_id: ctx.alert.alert_def_id, device: ctx.alert.device, severity: ctx.alert.severity ?? '' }));
  const device = new Map<string, unknown>([
    ['name', ctx.device.name],
    ['platform', ctx.device.platform ?? ''],
    ['tags', new Map(Object.entries(ctx.device.tags ?? {}))],
  ]);
  return { alert, device, lines: [...ctx.lines], now: ctx.at.toISOString() };
}

/**
 * The verdict for a requested change. A change record's window comes first (the record's owner
 * decides, never a card), then the first class whose `when` holds, then the freeze and the hours.
 * Anything the policy does not clearly allow is the policy's default (escalate or deny).
 */
export function evaluatePolicy(loaded: LoadedPolicy, ctx: PolicyContext): Verdict {
  const { policy } = loaded;
  const at = ctx.at.getTime();
  const open = openWindow(loaded.windows, ctx.alert.device, ctx.alert.vars, at);
  if (open) {
    const { window } = open;
    const until = new Date(open.to).toISOString().replace(/:00\.000Z$/, 'Z');
    return { kind: 'escalate', rule: window.label, owner: window.owner, reason: `${window.label}${window.summary ? ` (${window.summary})` : ''} names this ${ctx.alert.device} change and its window is open until ${until}: its owner (${window.owner}) decides, not a card` };
  }
  const freeze = policy.freezes.find((f) => instantOf(f.from, policy.timezone) <= at && at < instantOf(f.to, policy.timezone));
  const vars = bindings(ctx);
  for (const c of policy.classes) {
    const result = loaded.when.get(c.id)?.(vars);
    if (isCelError(result)) return { kind: 'escalate', rule: c.id, reason: `${c.id}: the policy could not be evaluated (${result.message}), so the change is escalated` };
    if (result !== true) continue;
    if (c.escalate) return { kind: 'escalate', rule: c.id, reason: c.escalate };
    if (c.deny) return { kind: 'deny', rule: c.id, reason: c.deny };
    const approve = c.approve!;
    if (freeze) {
      const f = c.in_freeze;
      if (!f) return { kind: 'escalate', rule: `${c.id} in freeze ${freeze.name}`, reason: `change freeze ${freeze.name} (${freeze.from} to ${freeze.to}): ${c.id} has no emergency path` };
      if (f.severities && !f.severities.includes(ctx.alert.severity ?? '')) {
        // Those who could approve it as an emergency are whom to escalate to.
        return { kind: 'escalate', rule: `${c.id} in freeze ${freeze.name}`, owner: `${f.groups.join(', ')} (the freeze's emergency approvers)`, reason: `change freeze ${freeze.name}: only ${f.severities.join(', ')} changes go through, this one is ${ctx.alert.severity || 'without a severity'}` };
      }
      return { kind: 'approve', rule: `${c.id} in freeze ${freeze.name}`, groups: f.groups, count: f.count, reason: `${f.count} approval${f.count > 1 ? 's' : ''} from ${f.groups.join(', ')} (freeze ${freeze.name})` };
    }
    if (approve.hours && !withinHours(approve.hours, at, policy.timezone)) {
      return { kind: 'escalate', rule: c.id, reason: `${c.id} is approvable by card only between ${approve.hours} ${policy.timezone}` };
    }
    return { kind: 'approve', rule: c.id, groups: approve.groups, count: approve.count, reason: `${approve.count} approval${approve.count > 1 ? 's' : ''} from ${approve.groups.join(', ')}` };
  }
  const reason = 'no class of the policy matches this change';
  return policy.default === 'deny' ? { kind: 'deny', rule: 'default', reason } : { kind: 'escalate', rule: 'default', reason };
}
