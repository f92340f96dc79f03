import { z } from 'zod';

import { KB_QUERY_MODES } from '../../core/incidents/normalized-alert';

/** Splunk sends empty strings (and, for an unsaved search, null) for absent fields; treat them as absent. */
const blankToUndefined = (v: unknown) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);

/**
 * A key field (device, neighbor, VRF) names one fault: a multi-value field (Splunk sends an
 * array) would silently merge several, so it is refused with its name instead.
 */
const single = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v, ctx) => {
    if (Array.isArray(v)) {
      if (v.length === 1) return blankToUndefined(v[0]);
      ctx.addIssue({ code: 'custom', message: `one value per alert: Splunk sent ${v.length} (a multi-value field); split the search so each result is one fault` });
      return z.NEVER;
    }
    return blankToUndefined(v);
  }, schema);

// Identifiers end up in file names (artifact folders, session logs): keep them tame.
const alertDefId = z
  .string({ error: 'required string' })
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, "_", "." or "-" (for example AD000002)');
const hostname = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,252}$/, 'a device hostname (letters, digits, "_", ".", ":" or "-")');
const ip = z.union([z.ipv4(), z.ipv6()], { error: 'an IPv4 or IPv6 address' });

/**
 * Any other Splunk field: strings kept, numbers and booleans stringified, multivalue
 * arrays joined. Nested objects are refused: the agent gets flat, readable variables.
 */
const scalarField = z.union(
  [
    z.string(),
    z.number().transform(String),
    z.boolean().transform(String),
    z.array(z.union([z.string(), z.number(), z.boolean()])).transform((a) => a.map(String).join(', ')),
  ],
  { error: 'a string, number, boolean or list of those (nested objects are not accepted)' },
);

// Any other field: validated and stringified in the same pass (null: absent).
export const alertResultSchema = z.object({
  alert_def_id: alertDefId,
  system: single(hostname.optional()),
  device_name: single(hostname.optional()),
  _time: z.preprocess(blankToUndefined, scalarField.optional()),
  device_ip: z.preprocess(blankToUndefined, ip.optional()),
  neighbor_ip: single(ip.optional()),
  vrf_name: single(z.string().trim().max(64).optional()),
  neighbor_as: z.preprocess(blankToUndefined, scalarField.pipe(z.string().regex(/^\d+(\.\d+)?$/, 'an AS number')).optional()),
  _raw: z.preprocess(blankToUndefined, z.string().optional()),
}).catchall(scalarField.nullable());

export const SEARCH_METADATA_KEYS = ['sid', 'search_name', 'app', 'owner', 'results_link'] as const;

export const inboundAlertSchema = z
  .looseObject({
    result: alertResultSchema,
    sid: z.preprocess(blankToUndefined, z.string().optional()),
    search_name: z.preprocess(blankToUndefined, z.string().optional()),
    app: z.preprocess(blankToUndefined, z.string().optional()),
    owner: z.preprocess(blankToUndefined, z.string().optional()),
    results_link: z.preprocess(blankToUndefined, z.url().optional()),
    kb_query_mode: z.preprocess(blankToUndefined, z.enum(KB_QUERY_MODES).optional()),
  })
  .superRefine((alert, ctx) => {
    if (!alert.result.system && !alert.result.device_name && !hostname.safeParse(alert.result.host).success) {
      ctx.addIssue({
        code: 'custom',
        path: ['result', 'system'],
        message: 'a device hostname is required in result.system or result.device_name (or Splunk\'s result.host)',
      });
    }
  });

export type InboundAlert = z.output<typeof inboundAlertSchema>;

/** Splunk's `host` as a device name, when it is one. */
export const hostAsDevice = (value: unknown): string | undefined => {
  const parsed = hostname.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};
