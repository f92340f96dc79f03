import { z } from 'zod';
import { variableFormatSchema } from './formats';
import { alertSourcesSchema } from './schema-sources';

/** The alert definition id names the artifact group: "AD" and six digits. */
export const alertDefIdSchema = z.string().regex(/^AD\d{6}$/, 'must be "AD" followed by six digits, e.g. AD000002');
export const semverSchema = z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a version like 1.0.0');
export const variableNameSchema = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be snake_case, e.g. neighbor_ip');

/** Value formats the FS can demand of a variable (formats.ts): checked at intake and whenever a command is rendered. */
export { variableFormatSchema, type VariableFormat } from './formats';

export const detectionPatternSchema = z.strictObject({
  id: variableNameSchema,
  description: z.string().min(1),
  /** JavaScript regular expression with named groups; the groups are FS variables. */
  regex: z.string().min(1),
  /** Real log lines the regex must match; the validator proves it. */
  examples: z
    .array(
      z.strictObject({
        line: z.string().min(1),
        captures: z.record(z.string(), z.string()).default({}),
      }),
    )
    .min(1),
});

export const fsVariableSchema = z.strictObject({
  name: variableNameSchema,
  description: z.string().min(1),
  format: variableFormatSchema.default('text'),
  /** Where the value comes from: an alert field (prompt `device_hostname` or `alert_vars`) and/or a pattern capture. */
  sources: z.array(z.enum(['alert', 'pattern'])).min(1),
  /** The name of the field in the alert when it differs from `name`. */
  alert_field: z.string().optional(),
  required: z.boolean().default(false),
});

export const faultSignatureSchema = z.strictObject({
  kind: z.literal('fault_signature'),
  alert_def_id: alertDefIdSchema,
  title: z.string().min(1),
  version: semverSchema,
  severity: z.enum(['critical', 'major', 'minor', 'warning', 'info']),
  platform: z.string().min(1),
  description: z.string().min(1),
  /** Alert fields without which the fault cannot be handled (the agent escalates). */
  required_alert_fields: z.array(z.string().min(1)).min(1),
  detection: z.strictObject({
    /** A log line is this fault when any pattern matches. */
    patterns: z.array(detectionPatternSchema).min(1),
    /** Lines that look alike but are a different fault; none may match any pattern. */
    counter_examples: z.array(z.string().min(1)).default([]),
  }),
  variables: z.array(fsVariableSchema).min(1),
  /**
   * What makes two alerts one fault (their incident's de-duplication key): FS variables, the device
   * among them. Absent: the BGP key (device, neighbor_ip, vrf_name) the relay was built with.
   */
  key_fields: z.array(variableNameSchema).min(1).optional(),
  /**
   * Regexes whose named groups take key fields out of the alert's raw log line when the sender did
   * not extract them; the first that yields a field wins. Absent: the detection patterns.
   */
  extract: z.array(z.strictObject({ regex: z.string().min(1), description: z.string().optional() })).min(1).optional(),
  /** How other alert senders' alerts map to this definition (schema-sources.ts); Splunk needs none. */
  sources: alertSourcesSchema.optional(),
});
export type FaultSignature = z.infer<typeof faultSignatureSchema>;
export type FsVariable = z.infer<typeof fsVariableSchema>;
