import type { FaultKeyRule } from '../artifacts/fault-key';
import { dedupKeyOf, normalizeAlert } from './normalize';
import { inboundAlertSchema, type InboundAlert } from './schema';
import type { AlertSource, BatchAlert } from './source';

/**
 * The Splunk adapter: one webhook body (a saved search's result) is one firing alert; Splunk has
 * no "resolved". Its wire format stays in schema.ts and its normalisation in normalize.ts.
 * `rule`: the alert definition's fault key (FS `key_fields`), when it declares one.
 */
export function splunkAlert(alert: InboundAlert, rule?: FaultKeyRule): BatchAlert {
  return {
    ref: alert.sid ?? '',
    status: 'firing',
    alert_def_id: alert.result.alert_def_id,
    dedup_key: dedupKeyOf(alert, rule),
    normalized: () => normalizeAlert(alert, rule),
  };
}

export const splunkSource: AlertSource<typeof inboundAlertSchema> = {
  name: 'splunk',
  body: inboundAlertSchema,
  read: async (alert) => ({ alerts: [splunkAlert(alert)], unmatched: [] }),
};
