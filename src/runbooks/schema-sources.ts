import { z } from 'zod';

/**
 * How alerts of other senders than Splunk map to this alert definition (the FS's optional
 * `sources`). Splunk's saved search names `alert_def_id` itself; Alertmanager knows only labels.
 */

const labelName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Prometheus label name (letters, digits, "_")');

/**
 * Where one FS variable comes from: a label's whole value (`peer`), or the part of it a regex's
 * `value` group captures, e.g. the host of an `instance` label that carries a port too.
 */
export const labelFieldSchema = z.union([labelName, z.strictObject({ label: labelName, regex: z.string().min(1) })], {
  error: 'a label name, or { label, regex } with a (?<value>…) group',
});
export type LabelField = z.infer<typeof labelFieldSchema>;

export const alertmanagerMappingSchema = z.strictObject({
  /** Labels an alert must carry with exactly these values to be this fault, e.g. `alertname: BGPNeighborAdminDown`. */
  match: z.record(labelName, z.string().min(1)).refine((m) => Object.keys(m).length > 0, 'name at least one label, e.g. alertname'),
  /** FS variable → the label that carries it; `device_hostname` is required (the validator checks the rest). */
  fields: z.record(z.string(), labelFieldSchema),
});
export type AlertmanagerMapping = z.infer<typeof alertmanagerMappingSchema>;

export const alertSourcesSchema = z.strictObject({
  alertmanager: alertmanagerMappingSchema.optional(),
});
