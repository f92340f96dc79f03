import { z } from 'zod';
import { ConfigFingerprint } from './config-fingerprint';
import { PREVIEW_METHODS, previewMethodText } from './preview-method';

export { ROLLBACK_TITLE, rollbackLines } from './rollback-text';

/**
 * What a change's lines would do to the live device, computed before anyone is asked to approve
 * them. Read-only: computing it never changes the device. How it was made:
 * preview-method.ts.
 */
export const ConfigPreviewMethod = z.enum(PREVIEW_METHODS);
export type ConfigPreviewMethod = z.infer<typeof ConfigPreviewMethod>;

export const ConfigPreview = z.object({
  device: z.string(),
  /** False: the device (or its grammar) refuses the lines; `problems` says why, per line. Such a change is never sent for approval. */
  accepted: z.boolean(),
  method: ConfigPreviewMethod,
  /** Running-configuration lines the change would add (indented as in the running configuration, or leaf paths for NETCONF). */
  added: z.array(z.string()),
  /** Running-configuration lines the change would remove. */
  removed: z.array(z.string()),
  problems: z.array(z.string()),
  /**
   * What the relay does to undo the change if it is not confirmed, computed by the device tool server
   * from the configuration it read before (never the agent's lines): `restore`, the commands that put
   * that configuration back (CLI devices, read back and compared after); `device_reverts`, the
   * device's own confirmed commit goes back to it (NETCONF). Absent where the server did not compute
   * one (older servers, the simulated lab).
   */
  rollback: z
    .object({
      method: z.enum(['restore', 'device_reverts']),
      lines: z.array(z.string()),
    })
    .optional(),
  /**
   * The device configuration this preview was computed against (config-fingerprint.ts): the guard
   * has the change applied only on that configuration. Absent where the server computed none.
   */
  fingerprint: ConfigFingerprint.optional(),
});
export type ConfigPreview = z.infer<typeof ConfigPreview>;

/** One short line for a notification or a log: "+1 −1 lines", or why it was refused. */
export function previewShort(p: ConfigPreview | null | undefined): string {
  if (!p) return 'no preview';
  if (!p.accepted) return `refused: ${p.problems[0] ?? 'the device refused the lines'}`;
  if (p.added.length === 0 && p.removed.length === 0) return 'no change to the running configuration';
  return `+${p.added.length} \u2212${p.removed.length} lines`;
}

/** The preview as plain text lines ("+ line" / "- line"), the same in every channel that shows text. */
export function previewLines(p: ConfigPreview | null | undefined): string[] {
  if (!p) return ['No preview: the relay has no device tools to dry-run the change.'];
  const how = previewMethodText(p.method);
  if (!p.accepted) return [`Refused by the dry run (${how}):`, ...p.problems.map((x) => `  ${x}`)];
  if (p.added.length === 0 && p.removed.length === 0) return [`Would change nothing in the running configuration (${how}).`];
  return [`Would change (${how}):`, ...p.added.map((l) => `+ ${l}`), ...p.removed.map((l) => `- ${l}`)];
}

