import { changeOutcomeText, type ChangeRecord } from './change';

/**
 * What became of a configuration change is the relay's to say, from its change record (confirmed,
 * rolled back and why, rollback failed), never the model's or a runbook's: outcome text that says a
 * change "remains in place" while the relay rolled it back is how a person is misled. This finds
 * such claims, so the relay drops them from the outcome it stores and shows (and the artifact
 * validator refuses them in a RAW's terminal summaries), and words the record in one line.
 */

export { configClaims, withoutConfigClaims } from '../../runbooks/outcome-claims';

/** The incident fields the relay's own words about the change come from. */
export interface ChangeFacts {
  device_hostname: string;
  change: ChangeRecord | null;
  application: { status: string; device?: string | null };
}

/** How the configuration change ended, from the relay's record, as one sentence every channel shows. */
export function changeWords(incident: ChangeFacts): string {
  const change = incident.change;
  if (change) return `Configuration change on ${change.device}: ${changeOutcomeText(change)}.`;
  if (incident.application.status === 'applied') return `Configuration change applied on ${incident.application.device ?? incident.device_hostname}.`;
  return 'No configuration change was applied.';
}

/** The heading the relay's own line about the change goes under, on every channel. */
export const CHANGE_WORDS_TITLE = "Configuration change (the relay's record)";
