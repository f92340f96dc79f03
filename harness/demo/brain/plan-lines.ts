import { planAsLines, PLAN_DEVICE_MARK } from '../../../src/core/approvals/plan-lines';
import type { RawStep } from '../../../src/runbooks/schema-raw';
import { renderTemplate } from '../../../src/runbooks/template';
import { platformOf } from '../../../src/runbooks/variants';

/** One device's lines of a plan, as request_approval and config_cli take them. */
export interface PlanPart {
  device: string;
  commands: string[];
  rollback?: string[];
}

type RepairStep = Extract<RawStep, { kind: 'repair' }>;

/**
 * The repair's plan, the incident's device first, then each role's device as the relay named it in the
 * prompt; undefined when the repair is on one device. Each role's lines take the incident's platform
 * variant (the lab's routers share one platform), as the RAW engine does.
 */
export function renderPlan(step: RepairStep, vars: Record<string, string>, device: string, own: string[], roles: Readonly<Record<string, string>>): PlanPart[] | undefined {
  if (!step.plan?.length) return undefined;
  const platform = platformOf(vars) as keyof NonNullable<NonNullable<RepairStep['plan']>[number]['variants']> | undefined;
  const render = (lines: readonly string[]) => lines.map((c) => renderTemplate(c, vars).trim()).filter(Boolean);
  const others = step.plan.map((p) => ({ device: roles[p.device]!, commands: render((platform && p.variants?.[platform]?.commands) || p.commands) }));
  return [{ device, commands: own }, ...others];
}

/** The plan as one list of lines, each device's under its heading: how the relay shows and approves it. */
export const planText = (plan: readonly PlanPart[]): string[] => planAsLines(plan);

/** Lines with device headings back into the plan's parts (the approved_commands of a plan). */
export function splitPlan(lines: readonly string[]): PlanPart[] {
  const parts: PlanPart[] = [];
  for (const line of lines) {
    if (PLAN_DEVICE_MARK.test(line)) parts.push({ device: line.replace(PLAN_DEVICE_MARK, '').trim(), commands: [] });
    else parts.at(-1)?.commands.push(line);
  }
  return parts;
}

/** True when the lines carry device headings: a plan, not one device's lines. */
export const isPlanText = (lines: readonly string[]) => lines.some((l) => PLAN_DEVICE_MARK.test(l));
