import type { Operator } from '../operators/operators';
import type { Policy } from './schema';

/**
 * What the policy asks of people that OPERATORS_FILE cannot give: a group nobody is in, or more
 * approvals than there are approvers in the groups. Warnings, not errors: such a class escalates
 * in practice (nobody can reach its count), which is safe, but surely not what was meant.
 */
export function staffingWarnings(policy: Policy, operators: readonly Operator[]): string[] {
  const approvers = operators.filter((op) => op.role === 'approver');
  const warnings: string[] = [];
  for (const c of policy.classes) {
    for (const [part, need] of [['approve', c.approve], ['in_freeze', c.in_freeze]] as const) {
      if (!need) continue;
      for (const group of need.groups) {
        if (!approvers.some((op) => op.groups?.includes(group))) warnings.push(`${c.id} ${part}: no approver in OPERATORS_FILE is in group ${group} (fix: add ${group} to someone's groups, or take it out of the class)`);
      }
      const eligible = approvers.filter((op) => (op.groups ?? []).some((g) => need.groups.includes(g))).length;
      if (eligible > 0 && eligible < need.count) warnings.push(`${c.id} ${part}: needs ${need.count} approvals from ${need.groups.join(', ')}, and only ${eligible} approver${eligible > 1 ? 's are' : ' is'} in those groups`);
    }
  }
  return warnings;
}
