import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { clockStartingAt, type Clock } from '../../src/core/clock';
import { newToken } from '../../src/core/operators/operators';

/**
 * A Monday morning, outside the shipped policy's year-end freeze, its change records and its
 * maintenance windows: the demo and the eval run under the real policy, and its verdict is the
 * same whatever day they are run.
 */
export const POLICY_DEMO_TIME = '2026-11-30T10:00:00.000Z';

/** The person who decides in the demo and the eval: an approver in every group the shipped policy names. */
export const DEMO_OPERATOR = { name: 'Demo operator', email: 'demo-operator@example.net' } as const;

/** The relay settings and clock that put the demo or the eval under `policy.yaml`, pinned at POLICY_DEMO_TIME. */
export function demoPolicy(projectDir: string, dataDir: string): { env: Record<string, string>; clock: Clock; notice: string } {
  const operators = path.join(dataDir, 'operators.yaml');
  writeFileSync(operators, stringify({ operators: [{ ...DEMO_OPERATOR, role: 'approver', groups: ['tier1', 'tier2', 'change-manager'], token_sha256: newToken().sha256 }] }), { mode: 0o600 });
  return {
    env: { POLICY_FILE: path.join(projectDir, 'policy.yaml'), OPERATORS_FILE: operators },
    clock: clockStartingAt(new Date(POLICY_DEMO_TIME)),
    notice: `clock    pinned to ${POLICY_DEMO_TIME.slice(0, 16).replace('T', ' ')} UTC: outside the year-end freeze and every change window, so the shipped policy's verdict does not depend on the day you run this`,
  };
}
