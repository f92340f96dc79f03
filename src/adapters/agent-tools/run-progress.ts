import type { Logger } from 'pino';
import { loadArtifactGroup } from '../../runbooks/load';
import type { RawStep, RepairActionWorkflow } from '../../runbooks/schema-raw';
import { renderTemplate } from '../../runbooks/template';
import type { ArtifactGroup } from '../../runbooks/validate';
import { platformOf, stepForPlatform } from '../../runbooks/variants';
import type { Incidents } from '../../core/incidents/service';

/** The steps a run takes when everything goes as expected, first to the resolve step. */
export function mainPath(raw: RepairActionWorkflow): string[] {
  const byId = new Map(raw.steps.map((s) => [s.id, s]));
  const path: string[] = [];
  let step: RawStep | undefined = raw.steps[0];
  while (step && !path.includes(step.id)) {
    path.push(step.id);
    const next: string | undefined = step.kind === 'wait' ? step.next : 'on_success' in step ? step.on_success : undefined;
    if (next === undefined) break; // resolve, fail, escalate end the run
    step = byId.get(next);
  }
  return path;
}

/**
 * Which RAW step a device call belongs to: the step whose command (as this device's platform gets it,
 * rendered with the incident's variables) is the one called. Undefined for a call the RAW does not name.
 */
export function stepOfCall(raw: RepairActionWorkflow, vars: Readonly<Record<string, string | undefined>>, call: string | string[]): { step: string; index: number | null; total: number } | undefined {
  const values: Record<string, string> = {};
  for (const input of raw.inputs) {
    const v = vars[input.name] ?? input.default;
    if (v !== undefined) values[input.name] = v;
  }
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) values[k] ??= v;
  const render = (t: string) => {
    try {
      return renderTemplate(t, values).trim();
    } catch {
      return undefined; // a template reading a value captured at run time
    }
  };
  const path = mainPath(raw);
  for (const written of raw.steps) {
    const step = stepForPlatform(written, platformOf(values));
    // A configuration change is the RAW's repair step (its lines hold values captured at run time,
    // which the relay does not know; the guard has already held them to the approval).
    const hit =
      typeof call === 'string'
        ? (step.kind === 'validate' || step.kind === 'collect' || step.kind === 'revalidate') && render(step.action.command) === call.trim()
        : step.kind === 'repair';
    if (!hit) continue;
    const index = path.indexOf(step.id);
    return { step: step.id, index: index === -1 ? null : index + 1, total: path.length };
  }
  return undefined;
}

/** Records an incident's progress after each allowed device call; artifact groups are read once. */
export function createRunProgress(deps: { incidents: Incidents; artifactsDir: string; logger: Logger; now?: () => Date }) {
  const groups = new Map<string, Promise<ArtifactGroup | null>>();
  const group = (id: string) => {
    let p = groups.get(id);
    if (!p) {
      p = loadArtifactGroup(deps.artifactsDir, id).catch(() => null);
      groups.set(id, p);
    }
    return p;
  };
  return async (incidentId: string, call: string | string[]): Promise<void> => {
    const incident = deps.incidents.get(incidentId);
    if (!incident) return;
    const g = await group(incident.alert_def_id);
    if (!g) return;
    const found = stepOfCall(g.raw, { ...incident.alert_vars, device_hostname: incident.device_hostname }, call);
    if (!found) return;
    const at = (deps.now?.() ?? new Date()).toISOString();
    deps.incidents.update(incidentId, () => ({ progress: { ...found, at } }), { lazy: true });
  };
}
