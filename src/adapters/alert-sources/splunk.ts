import { formatProblems, type AlertFormats, type FormatProblem } from '../../runbooks/alert-formats';
import type { FaultKeyRule } from '../../runbooks/fault-key';
import { dedupKeyOf, normalizeAlert } from './normalize';
import type { NormalizedAlert } from '../../core/incidents/normalized-alert';
import { inboundAlertSchema, type InboundAlert } from './schema';
import type { AlertSource, BatchAlert } from '../../core/incidents/alert-source';

/** An alert whose values fail the formats its runbook declares: refused, naming each field. */
export class InvalidAlertError extends Error {
  override readonly name = 'InvalidAlertError';
  constructor(readonly problems: FormatProblem[]) {
    super(`alert refused: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}. Nothing was run; fix the search so the field carries only the value`);
  }
}

/**
 * The Splunk adapter: one webhook body (a saved search's result) is one firing alert; Splunk has
 * no "resolved". Its wire format stays in schema.ts and its normalisation in normalize.ts.
 * `rule`: the alert definition's fault key (FS `key_fields`), when it declares one. `formats`: what
 * its values must be (the runbook's declared formats); the normalized alert, the log line's values
 * included, is checked when a new incident would be made from it, and throws InvalidAlertError.
 */
export function splunkAlert(alert: InboundAlert, rule?: FaultKeyRule, formats?: AlertFormats): BatchAlert {
  return {
    ref: alert.sid ?? '',
    status: 'firing',
    alert_def_id: alert.result.alert_def_id,
    dedup_key: dedupKeyOf(alert, rule),
    normalized: () => checked(normalizeAlert(alert, rule), alert, formats),
  };
}

function checked(normalized: NormalizedAlert, alert: InboundAlert, formats: AlertFormats | undefined): NormalizedAlert {
  if (!formats || formats.size === 0) return normalized;
  const sent = alert.result as Record<string, unknown>;
  const problems = formatProblems(normalized.alert_vars, formats, (key) => (sent[key] !== undefined && sent[key] !== null ? `result.${key}` : `result._raw (${key})`));
  if (problems.length > 0) throw new InvalidAlertError(problems);
  return normalized;
}

export const splunkSource: AlertSource<typeof inboundAlertSchema> = {
  name: 'splunk',
  body: inboundAlertSchema,
  read: async (alert) => ({ alerts: [splunkAlert(alert)], unmatched: [] }),
};
