import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import { tempDir } from '../helpers/temp-dir';

export const approver = { ...newToken(), email: 'ana@example.net' };

/** OPERATORS_FILE with one approver, for relays sharing a database. */
export function operatorsEnv(): Record<string, string> {
  const file = join(tempDir('fault-relay-team-ops-'), 'operators.yaml');
  writeFileSync(file, stringify({ operators: [{ name: 'Ana Ruiz', email: approver.email, role: 'approver', token_sha256: approver.sha256 }] }));
  return { OPERATORS_FILE: file };
}
