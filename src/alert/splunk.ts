import { dedupKeyOf, normalizeAlert } from './normalize';
import { inboundAlertSchema, type InboundAlert } from './schema';
import type { AlertSource, BatchAlert } from './source';

/**
 * The Splunk adapter: one webhook body (a saved search's result) is one firing alert; Splunk has
 * no "resolved". Its wire format stays in schema.ts and its normalisation in normalize.ts.
 */
export function splunkAlert(alert: InboundAlert): BatchAlert {
  return {
    ref: alert.sid ?? '',
    status: 'firing',
    alert_def_id: alert.result.alert_def_id,
    dedup_key: dedupKeyOf(alert),
    normalized: () => normalizeAlert(alert),
  };
}

export const splunkSource: AlertSource<typeof inboundAlertSchema> = {
  name: 'splunk',
  body: inboundAlertSchema,
  read: async (alert) => ({ alerts: [splunkAlert(alert)], unmatched: [] }),
};
