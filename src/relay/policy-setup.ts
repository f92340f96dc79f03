import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { RelayConfig } from '../config/schema';
import { inventoryFacts } from '../adapters/devices/inventory-lookup';
import { openRelayPolicy, type RelayPolicy } from '../core/policy/relay-policy';
import { createPolicyFilesCheck } from '../adapters/agent/policy-files';

/** The change policy as the relay wires it. */
export interface ConfiguredPolicy {
  /** What the approvals ask: while a policy file in the project differs from what ships, every verdict escalates. */
  policy: RelayPolicy;
  /** Why runs are held (a policy file in the project differs from what ships), or null. */
  heldBecause(): string | null;
  /** An edit that does not load, and a project policy file that differs from what ships. */
  warnings(): string[];
}

/**
 * The change policy POLICY_FILE names, with the inventory's platform and tags of each device; none
 * without it. Loaded before anything can ask for a change: a relay does not start on a policy it
 * cannot read. A policy file inside the project folder is shipped like the agent files: while one
 * differs from the manifest, runs are held and a run already going gets no card.
 */
export function openConfiguredPolicy(
  config: Pick<RelayConfig, 'POLICY_FILE' | 'DEVICE_INVENTORY' | 'RELAY_PROJECT_DIR'>,
  logger: Logger,
  onChange: (change: { file: string; sha256: string; ok: boolean }) => void,
): ConfiguredPolicy | undefined {
  if (!config.POLICY_FILE) return undefined;
  const opened = openRelayPolicy(resolve(config.POLICY_FILE), logger, { device: inventoryFacts(config.DEVICE_INVENTORY), onChange });
  const files = createPolicyFilesCheck(resolve(config.RELAY_PROJECT_DIR), () => opened.sources());
  const policy: RelayPolicy = {
    ...opened,
    verdict: (incident, lines, at) => {
      const problem = files.problem();
      return problem ? { kind: 'escalate', rule: 'POLICY_FILE as shipped', reason: problem } : opened.verdict(incident, lines, at);
    },
  };
  return { policy, heldBecause: files.problem, warnings: () => [...opened.warnings(), ...files.warnings()] };
}
