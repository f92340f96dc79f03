import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import type { ChangeRecord } from '../../src/core/policy/schema';
import { tempDir } from './temp-dir';

/**
 * An on-call team with groups and a change policy whose BGP class needs two approvals from
 * change-manager or tier2, for the tests of who counts toward a requirement.
 */
export const people = {
  ana: { ...newToken(), email: 'ana@example.net', name: 'Ana Ruiz', role: 'approver', groups: ['tier2'], os_user: 'ana' },
  carl: { ...newToken(), email: 'carl@example.net', name: 'Carl Meyer', role: 'approver', groups: ['change-manager'], os_user: 'carl' },
  tom: { ...newToken(), email: 'tom@example.net', name: 'Tom Ito', role: 'approver', groups: ['tier1'], os_user: 'tom' },
  vic: { ...newToken(), email: 'vic@example.net', name: 'Victor Li', role: 'viewer', groups: ['tier2'] },
};
export type Person = (typeof people)[keyof typeof people];

export const TWO_PERSON_RULE = 'SC-BGP-TWO';

/**
 * POLICY_FILE and OPERATORS_FILE in a folder of the test's own: `count` approvals from change-manager, tier2 for
 * AD000002; `records`, when given, are the policy's change records (change-records.yaml beside it).
 */
export function policyPeopleEnv(count = 2, records?: ChangeRecord[]): Record<string, string> {
  const dir = tempDir('fault-relay-policy-people-');
  const operators = Object.values(people).map(({ token: _token, sha256, ...p }) => ({ ...p, token_sha256: sha256 }));
  writeFileSync(join(dir, 'operators.yaml'), stringify({ operators }));
  if (records) writeFileSync(join(dir, 'change-records.yaml'), stringify({ records }));
  writeFileSync(
    join(dir, 'policy.yaml'),
    stringify({ version: 1, timezone: 'UTC', default: 'escalate', ...(records ? { change_records: 'change-records.yaml' } : {}), classes: [{ id: TWO_PERSON_RULE, when: 'alert.alert_def_id == "AD000002"', approve: { groups: ['change-manager', 'tier2'], count } }] }),
  );
  return { OPERATORS_FILE: join(dir, 'operators.yaml'), POLICY_FILE: join(dir, 'policy.yaml') };
}
