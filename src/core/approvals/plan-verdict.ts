import type { Incident } from '../incidents/model';
import type { RelayPolicy } from '../policy/relay-policy';
import type { Verdict } from '../policy/schema';

const RANK: Record<Verdict['kind'], number> = { approve: 0, escalate: 1, deny: 2 };

/** The stricter of two verdicts: deny over escalate over approve; of two approvals, the one that needs more people. */
function stricter(a: Verdict, b: Verdict): Verdict {
  if (RANK[a.kind] !== RANK[b.kind]) return RANK[a.kind] > RANK[b.kind] ? a : b;
  if (a.kind === 'approve' && b.kind === 'approve' && b.count > a.count) return b;
  return a;
}

/**
 * The change policy's verdict on a request: for a plan, each device's lines as a change on that
 * device, and the strictest of them holds for the whole plan (the rule that decided it is named).
 */
export function requestVerdict(policy: Pick<RelayPolicy, 'verdict'>, incident: Incident, input: { readonly commands: readonly string[]; readonly plan?: ReadonlyArray<{ readonly device: string; readonly commands: readonly string[] }> }, at: Date): Verdict {
  if (!input.plan) return policy.verdict(incident, [...input.commands], at);
  return input.plan
    .map((entry) => policy.verdict({ ...incident, device_hostname: entry.device }, [...entry.commands], at))
    .reduce((a, b) => stricter(a, b));
}
