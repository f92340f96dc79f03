import { SETTING_SOURCES } from '../../config/setting-sources';
import { z } from 'zod';
import { KB_QUERY_MODES } from '../../core/incidents/normalized-alert';

/**
 * Shapes of the read-only UI's own endpoints (`/ui/api/*`). The renderer's Bridge contract
 * (`renderer/bridge/contract.ts`) states the same shapes as interfaces; the HTTP bridge parses
 * every answer with these schemas and checks at compile time that both agree.
 */

/** Variables set by the form's own fields, so they cannot come in twice. */
const RESERVED_VARS = new Set(['alert_def_id', 'system', 'device_name']);

export const directPromptInputSchema = z.strictObject({
  alert_def_id: z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'an alert definition id such as AD000002'),
  device: z.string().trim().min(1, 'the device hostname is required').max(253),
  mode: z.enum(['strict', 'hybrid']),
  kb_query_mode: z.enum(KB_QUERY_MODES).optional(),
  /** Refused when set: headed incident ids are assigned by the relay (kept so an old form gets a clear error). */
  incident_id: z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, 'letters, digits, "_", ".", ":" or "-"').optional(),
  /** Alert variables. Absent: the simulator's sample value; empty string: left out of the alert. */
  vars: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a variable name (letters, digits, "_")'),
      z.string().max(2048),
    )
    .default({})
    .superRefine((vars, ctx) => {
      for (const key of Object.keys(vars)) {
        if (RESERVED_VARS.has(key)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is set by its own field, not as a variable` });
      }
    }),
});
export type DirectPromptBody = z.infer<typeof directPromptInputSchema>;

export const directPromptResponseSchema = z.object({ prompt: z.string(), incident_id: z.string() });

export const artifactGroupViewSchema = z.object({
  alert_def_id: z.string(),
  title: z.string(),
  valid: z.boolean(),
  variables: z.array(z.object({ name: z.string(), required: z.boolean(), example: z.string().optional() })),
});
export type ArtifactGroupViewBody = z.infer<typeof artifactGroupViewSchema>;

export const sessionLogResponseSchema = z.object({ incident_id: z.string(), markdown: z.string().nullable() });

export const settingFieldSchema = z.object({
  name: z.string(),
  /** As configured, for editing. */
  value: z.string().nullable(),
  /** As it runs, for reading: durations as durations, the port actually served; null for secrets and unset values. */
  inForce: z.string().nullable(),
  source: z.enum(SETTING_SOURCES),
  note: z.string().optional(),
  secret: z.boolean(),
  isSet: z.boolean(),
  description: z.string(),
});
export type SettingFieldBody = z.infer<typeof settingFieldSchema>;
