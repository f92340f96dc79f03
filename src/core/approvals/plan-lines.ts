import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ConfigPreview } from '../../runbooks/config-preview';
import { canonicalLines } from './lines';

/** One device of a change plan as stored and shown: its lines, the agent's rollback, and the relay's dry run on it. */
export const planEntrySchema = z.object({
  device: z.string(),
  commands: z.array(z.string()),
  rollback: z.array(z.string()).default([]),
  preview: ConfigPreview.nullable().default(null),
});
export type PlanEntryRecord = z.infer<typeof planEntrySchema>;

/** One device's lines in a plan, as the agent asks and the guard applies them. */
export interface PlanEntry {
  device: string;
  commands: readonly string[];
}

/** The line that heads each device's lines wherever people read a plan as text. */
export const PLAN_DEVICE_MARK = /^\s*!\s*device\b/i;
/** A device name as compared (claim.ts, sameDevice): surrounding space dropped, case folded. */
const deviceKey = (name: string) => name.trim().toLowerCase();

export const planHeading = (device: string) => `! device ${device}`;

/**
 * The plan's one hash: every device (by its compared name) with its canonical lines, in order, as
 * JSON, so no line of one device can pass for another device's (a join of texts could be split
 * anywhere). Shown to people and checked by the guard exactly like a single device's `lines_sha256`.
 */
export function planSha256(plan: readonly PlanEntry[]): string {
  const canonical = plan.map((e) => ({ device: deviceKey(e.device), lines: canonicalLines(e.commands) }));
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** The plan as the lines people read on every channel: each device's heading, then its lines. */
export function planAsLines(plan: readonly PlanEntry[]): string[] {
  return plan.flatMap((e) => [planHeading(e.device), ...e.commands]);
}
