import { z } from 'zod';
import { planViewSchema } from '../approvals/plan-view';
import { evidencePolicySchema } from './evidence-policy';
import { outcomeSchema } from './model';

/**
 * One incident's evidence, as a person exports it for a change record or a post-mortem: what was
 * asked, who decided, what the device said before and after the change, and how the change ended.
 * Built by `buildEvidenceBundle` (evidence-bundle.ts); every part is hashed in the manifest, so a copy
 * can be checked against the one the relay gave (`verifyEvidenceBundle`, evidence-manifest.ts).
 */
export const EVIDENCE_FORMAT = 'fault-relay-evidence/1';

/** The relay keeps this much of a show output (the guard, src/adapters/device-tools/device-guard.ts, and the post-check). */
export const GUARD_EXEC_LIMIT = 20_000;

export const deviceOutputSchema = z.object({
  at: z.string(),
  device: z.string(),
  command: z.string(),
  output: z.string(),
  /** At the relay's limit (GUARD_EXEC_LIMIT): the device may have printed more than was kept. */
  truncated: z.boolean(),
  /** Secrets taken out of this output before it was hashed. */
  redactions: z.number().int(),
  /** Who ran it: null for the agent's calls through the guard, `post-check` for the relay's own check of a change. */
  by: z.string().nullable(),
});
export type DeviceOutput = z.infer<typeof deviceOutputSchema>;

export const CHANGE_RESULTS = ['not_applied', 'applied', 'apply_failed', 'interrupted', 'pending_confirmation', 'confirmed', 'rolled_back', 'rollback_failed'] as const;

const changeEventSchema = z.object({ at: z.string(), type: z.string(), message: z.string() });

/**
 * The no-overwrite check at apply time: the device's configuration read again and compared with the
 * one the approved preview was computed against. `match`: as previewed; `mismatch`: changed meanwhile,
 * nothing sent; `unconfirmed`: the device tool server did not say it checked. Null: no check (no preview
 * fingerprint, or nothing was applied).
 */
export const fingerprintCheckSchema = z.object({
  result: z.enum(['match', 'mismatch', 'unconfirmed']),
  at: z.string(),
  device: z.string(),
  before_sha256: z.string(),
  now_sha256: z.string().nullable(),
  /** What changed, as the relay's diff summary (`+` new since the preview, `-` gone since). */
  changed: z.array(z.string()),
});

export const evidenceBundleSchema = z.object({
  format: z.literal(EVIDENCE_FORMAT),
  generated_at: z.string(),
  incident: z.object({
    incident_id: z.string(),
    kind: z.string(),
    alert_def_id: z.string(),
    device_hostname: z.string(),
    mode: z.string(),
    state: z.string(),
    severity: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    outcome: outcomeSchema.nullable(),
    warnings: z.array(z.string()),
    alert_vars: z.record(z.string(), z.string()),
  }),
  approval_request: z
    .object({
      request_id: z.string(),
      summary: z.string(),
      device: z.string(),
      /** The lines as the human read them (secrets a line carries are redacted: `lines_redacted`). */
      lines: z.array(z.string()),
      /** As recorded when the approval was asked: what every channel showed and the guard checked. */
      lines_sha256: z.string(),
      /** Recomputed here from the recorded lines (src/core/approvals/lines.ts): equal unless the record was altered. */
      lines_sha256_matches: z.boolean(),
      lines_redacted: z.boolean(),
      /** The agent's proposed rollback: its claim, never run by the relay. */
      rollback: z.array(z.string()),
      /** What the relay itself does if the change is not confirmed, from the dry run (config-preview.ts rollbackLines). */
      relay_rollback: z.array(z.string()).default([]),
      artifact_ref: z.string().nullable(),
      requested_at: z.string(),
      expires_at: z.string(),
      status: z.string(),
      /** The dry run shown beside the lines, when the request carried one. */
      preview: z.unknown().nullable(),
      /** A change plan grouped by device as every channel showed it (plan-view.ts), redacted like the lines; null for one device. */
      plan: planViewSchema.nullable().default(null),
    })
    .nullable(),
  decision: z
    .object({
      request_id: z.string(),
      decision: z.string(),
      effective: z.string(),
      by: z.string(),
      channel: z.string(),
      at: z.string(),
      reason: z.string().nullable(),
    })
    .nullable(),
  /** The change policy's verdict, its rule, the policy file's SHA-256 and every approver (absent in bundles made before it). */
  policy: evidencePolicySchema.nullable().default(null),
  /** Show outputs before the first applied change (all of them when nothing was applied). */
  before: z.array(deviceOutputSchema),
  /** Show outputs after the first applied change: the post-checks. */
  after: z.array(deviceOutputSchema),
  change: z.object({
    result: z.enum(CHANGE_RESULTS),
    /** In words, as the tray and the card say it. */
    summary: z.string(),
    device: z.string().nullable(),
    applied_at: z.string().nullable(),
    applied_lines: z.array(z.string()),
    device_answer: z.string().nullable(),
    change_id: z.string().nullable(),
    deadline: z.string().nullable(),
    by: z.string().nullable(),
    reason: z.string().nullable(),
    events: z.array(changeEventSchema),
    /** Every fingerprint check of an apply, in order. */
    fingerprint_checks: z.array(fingerprintCheckSchema).default([]),
  }),
  manifest: z.object({
    algorithm: z.literal('sha256'),
    /** How each part is hashed, so anyone can check it without this code. */
    encoding: z.string(),
    parts: z.array(z.object({ path: z.string(), kind: z.enum(['json', 'text']), sha256: z.string() })),
    /** The whole bundle without `manifest`, as canonical JSON. */
    content_sha256: z.string(),
  }),
});
export type EvidenceBundle = z.infer<typeof evidenceBundleSchema>;
/** The bundle without its manifest: what the manifest hashes. */
export type EvidenceContent = Omit<EvidenceBundle, 'manifest'>;
