import { z } from 'zod';
import { ConfigPreview, previewLines } from '../../runbooks/config-preview';
import { rollbackLines } from '../../runbooks/rollback-text';
import { visibleLines } from './visible-text';

/**
 * A change plan as people read it on every channel the relay renders itself (the /ui and the tray,
 * the native notification, the terminal, the evidence bundle): grouped by device, each device with
 * its lines, the relay's dry run on it and the relay's rollback, under the plan's one request id and
 * hash. Defined once here; the relay's public incident carries it (relay-events.ts) and the renderer
 * reads it through that schema. Shared with the renderer: nothing here runs only in Node.
 */

/** The inventory's device-name format: a plan's device name is shown only when it has it. */
export const PLAN_DEVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
export const NOT_SHOWN_DEVICE = '(device name not shown: unexpected format)';
export const shownPlanDevice = (name: string) => (PLAN_DEVICE_NAME.test(name) ? name : NOT_SHOWN_DEVICE);

export const planDeviceViewSchema = z.object({
  /** The device, checked against PLAN_DEVICE_NAME (else NOT_SHOWN_DEVICE). */
  device: z.string(),
  /** Its lines exactly as approved and sent; every renderer escapes them (visible-text.ts) before showing them. */
  lines: z.array(z.string()),
  /** The relay's dry run on this device before anyone was asked; null when there was none. */
  preview: ConfigPreview.nullable(),
  /** The relay's own rollback of this device (rollback-text.ts): a sentence, then the lines it applies, if any. */
  rollback: z.array(z.string()),
});
export type PlanDeviceView = z.infer<typeof planDeviceViewSchema>;

export const planViewSchema = z.object({
  /** The plan's one request id: every decision names it. */
  request_id: z.string(),
  /** The plan's one hash over every device's lines (plan-lines.ts planSha256). */
  lines_sha256: z.string(),
  devices: z.array(planDeviceViewSchema),
});
export type PlanView = z.infer<typeof planViewSchema>;

/** The part of an approval request a plan's view is made from (incidents/model.ts ApprovalRequest). */
export interface PlanRequestLike {
  request_id: string;
  lines_sha256: string;
  plan?: ReadonlyArray<{ device: string; commands: readonly string[]; preview?: ConfigPreview | null }> | undefined;
}

/** The request grouped by device, or null when it is not a plan. */
export function planViewOf(request: PlanRequestLike | null | undefined): PlanView | null {
  if (!request?.plan?.length) return null;
  return {
    request_id: request.request_id,
    lines_sha256: request.lines_sha256,
    devices: request.plan.map((e) => ({ device: shownPlanDevice(e.device), lines: [...e.commands], preview: e.preview ?? null, rollback: rollbackLines(e.preview ?? null) })),
  };
}

const lineCount = (view: PlanView) => view.devices.reduce((n, d) => n + d.lines.length, 0);

/** One short line for a notification: "plan over R1, R2: 5 lines". */
export function planShort(view: PlanView): string {
  const n = lineCount(view);
  return `plan over ${view.devices.map((d) => d.device).join(', ')}: ${n} line${n === 1 ? '' : 's'}`;
}

/**
 * The plan as plain text for a terminal or a Markdown code block: per device its lines (indented,
 * escaped), its dry run and its rollback. `indent` prefixes every line under a device's heading.
 */
export function planViewText(view: PlanView, indent = '    '): string[] {
  const out = [`Plan ${view.request_id} over ${view.devices.map((d) => d.device).join(', ')} (plan hash ${view.lines_sha256.slice(0, 12)}), applied on every device or on none:`];
  for (const [i, d] of view.devices.entries()) {
    const lines = visibleLines(d.lines);
    out.push(
      '',
      `Device ${i + 1} of ${view.devices.length}: ${d.device}`,
      `  Configuration lines (exactly these are applied, once, on ${d.device}):`,
      ...(lines.lines.length ? lines.lines.map((l) => `${indent}${l}`) : [`${indent}(none given)`]),
      ...(lines.warning ? [`  ${lines.warning}`] : []),
      ...visibleLines(previewLines(d.preview)).lines.map((l, j) => (j === 0 ? `  ${l}` : `${indent}${l}`)),
      `  Rollback of ${d.device} (computed by the relay from the configuration before):`,
      ...visibleLines(d.rollback).lines.map((l, j) => (j === 0 ? `  ${l}` : `${indent}${l}`)),
    );
  }
  return out;
}
