import { changeOutcomeText, type ChangeRecord } from './change';

/**
 * What became of a configuration change is the relay's to say, from its change record (confirmed,
 * rolled back and why, rollback failed), never the model's or a runbook's: outcome text that says a
 * change "remains in place" while the relay rolled it back is how a person is misled. This finds
 * such claims, so the relay drops them from the outcome it stores and shows (and the artifact
 * validator refuses them in a RAW's terminal summaries), and words the record in one line.
 */

/** A sentence that says what became of a configuration change. */
const CONFIG_FATE = [
  /\b(?:remains?|stays?|left|kept|still)\s+(?:in place|applied|on the device)\b/i,
  /\broll(?:ed|s|ing)?[\s-]*back\b/i,
  /\b(?:revert(?:ed|s)?|undone)\b/i,
  /\b(?:change|configuration|repair)\b.*\b(?:confirmed|kept|persists?|permanent)\b/i,
];

/** Sentences as written: up to and with their full stop, or a line's end. */
const SENTENCE = /[^.!?\n]+(?:[.!?]+|(?=\n)|$)/g;

/** The sentences of `text` that claim what became of the configuration. */
export function configClaims(text: string): string[] {
  return (text.match(SENTENCE) ?? []).map((s) => s.trim()).filter((s) => CONFIG_FATE.some((re) => re.test(s)));
}

/** `text` without its claims about the configuration (the relay says that itself). */
export function withoutConfigClaims(text: string): { text: string; removed: string[] } {
  const removed: string[] = [];
  const kept = text.replace(SENTENCE, (s) => {
    if (!CONFIG_FATE.some((re) => re.test(s))) return s;
    removed.push(s.trim());
    return '';
  });
  if (removed.length === 0) return { text, removed };
  const tidy = kept.replace(/[ \t]{2,}/g, ' ').replace(/[ \t]+$/gm, '').trim();
  return { text: tidy || '(no summary left once its claims about the configuration were removed)', removed };
}

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
