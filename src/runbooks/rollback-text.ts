/**
 * The rollback every channel shows (card, Slack, terminal, tray, /ui, evidence, session log): what
 * the relay itself does if the change is not confirmed, from the rollback the device tool server
 * computed with the dry run (config-preview.ts). The agent's proposed rollback is never shown as it.
 * No zod here: the renderer imports it.
 */

/** The part of a preview this reads (config-preview.ts ConfigPreview). */
export interface RollbackOfPreview {
  accepted: boolean;
  rollback?: { method: 'restore' | 'device_reverts'; lines: string[] } | undefined;
}

export const ROLLBACK_TITLE = 'Rollback (computed by the relay from the configuration before)';

/** The rollback as plain text lines: a sentence saying what the relay does, then the lines it applies, if any. */
export function rollbackLines(p: RollbackOfPreview | null | undefined): string[] {
  const r = p?.accepted ? p.rollback : undefined;
  if (!r) return ['Unless the change is confirmed, the relay puts back the running configuration it reads just before applying, then reads it back to check.'];
  if (r.method === 'device_reverts') return ["Unless the change is confirmed, the device's confirmed commit reverts to the configuration before it."];
  if (r.lines.length === 0) return ['Nothing to undo: the lines change nothing in the running configuration.'];
  return ['Unless the change is confirmed, the relay applies these lines, then reads the configuration back to check:', ...r.lines];
}
