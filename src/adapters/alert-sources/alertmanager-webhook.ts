import { z } from 'zod';
import { alertStatusSchema } from '../../core/incidents/alert-source';

/**
 * Prometheus Alertmanager's webhook body, version 4 (`webhook_configs`). Fields the relay does not
 * read (groupLabels, commonLabels, externalURL …) pass through unchecked, so a newer Alertmanager
 * that adds some keeps working.
 */
const stringMap = z.record(z.string(), z.string({ error: 'a string (Alertmanager label and annotation values are strings)' }));

export const alertmanagerAlertSchema = z.looseObject({
  status: alertStatusSchema,
  labels: stringMap,
  annotations: stringMap.default({}),
  startsAt: z.string(),
  endsAt: z.string().optional(),
  generatorURL: z.string().optional(),
  /** Alertmanager's id of the label set: the reference the relay answers with. */
  fingerprint: z.string().default(''),
});
export type AlertmanagerAlert = z.output<typeof alertmanagerAlertSchema>;

export const alertmanagerWebhookSchema = z.looseObject({
  version: z.literal('4', { error: 'webhook version "4" (Alertmanager 0.x) is the version understood' }),
  status: alertStatusSchema,
  groupKey: z.string(),
  receiver: z.string(),
  /** How many alerts Alertmanager left out of this notification (its `max_alerts`). */
  truncatedAlerts: z.number().int().nonnegative().default(0),
  alerts: z.array(alertmanagerAlertSchema),
});
export type AlertmanagerWebhook = z.output<typeof alertmanagerWebhookSchema>;
