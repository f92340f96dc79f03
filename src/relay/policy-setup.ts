import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { RelayConfig } from '../config/schema';
import { inventoryFacts } from '../adapters/devices/inventory-lookup';
import { openRelayPolicy, type RelayPolicy } from '../core/policy/relay-policy';
import { createPolicyFilesCheck, type PolicyFilesCheck } from '../adapters/agent/policy-files';

/**
 * The change policy POLICY_FILE names, with the inventory's platform and tags of each device; none
 * without it. Loaded before anything can ask for a change: a relay does not start on a policy it cannot read.
 */
export function openConfiguredPolicy(config: Pick<RelayConfig, 'POLICY_FILE' | 'DEVICE_INVENTORY'>, logger: Logger, onChange: (change: { file: string; sha256: string; ok: boolean }) => void): RelayPolicy | undefined {
  if (!config.POLICY_FILE) return undefined;
  return openRelayPolicy(resolve(config.POLICY_FILE), logger, { device: inventoryFacts(config.DEVICE_INVENTORY), onChange });
}

/** Runs are held while a file of the policy in force that lives in the project differs from what the relay ships. */
export function policyFilesCheck(config: Pick<RelayConfig, 'RELAY_PROJECT_DIR'>, policy: RelayPolicy): PolicyFilesCheck {
  return createPolicyFilesCheck(resolve(config.RELAY_PROJECT_DIR), () => policy.sources());
}
