import type { ModelCheck, ModelStatus } from '../core/delivery/model-check';
import type { StoreHealth } from '../core/incidents/store';

/**
 * What stays wrong until someone changes the configuration: shown on `/health`, in `/ui` and
 * in the tray for as long as it holds, not once in a log line nobody reads.
 */
export function standingWarnings(input: { whenUnattended: 'approve' | 'deny'; channels: string[]; model: ModelStatus }): string[] {
  const out: string[] = [];
  if (input.model.state === 'missing') out.push(`${input.model.message}. Alerts fail at once instead of reaching a hosted default model.`);
  if (input.whenUnattended === 'approve') {
    out.push('APPROVAL_WHEN_UNATTENDED=approve: with no approval channel, configuration changes are applied without a human. For demos only.');
  } else if (input.channels.length === 0) {
    out.push('No approval channel (no Webex room, no tray): every configuration change a relay-started run asks for is denied. Headed runs are decided in the terminal.');
  }
  return out;
}

/** Writes the database refused for what they held: set aside (the rest committed) until someone looks. */
export function storeWarnings(health: StoreHealth): string[] {
  if (!health.refused_writes) return [];
  const n = health.refused_writes;
  return [`The incident database refused ${n === 1 ? 'a write' : `${n} writes`} for what ${n === 1 ? 'it' : 'they'} held (last: ${health.last_refused ?? 'unknown'}): set aside, every other write committed. See the incident's timeline and the relay log.`];
}

/**
 * Why no run can start right now, each named: /health is `degraded` while any holds. A model not
 * asked about yet is asked here once (the answer is shared with deliveries).
 */
export async function runBlockers(modelCheck: ModelCheck, held: () => string | null): Promise<string[]> {
  const model = modelCheck.current().state === 'unknown' ? await modelCheck.refresh().catch(() => modelCheck.current()) : modelCheck.current();
  const hold = held();
  return [...(model.state === 'missing' ? [model.message] : []), ...(hold ? [hold] : [])];
}
