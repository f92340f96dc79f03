import type { Logger } from 'pino';
import { normalizeAlert } from '../adapters/alert-sources/normalize';
import { parsePromptText, renderPromptText } from '../core/incidents/agent-prompt';
import type { InboundAlert } from '../adapters/alert-sources/schema';
import type { NormalizedAlert } from '../core/incidents/normalized-alert';
import type { FoundDevice } from '../runbooks/plan-devices';
import type { Incident } from '../core/incidents/model';
import { handedOverPlan, type HandedOverPlan } from '../core/incidents/plan-handover';
import { newIncidentFrom, type Incidents } from '../core/incidents/service';
import { isTerminal } from '../core/incidents/model';
import { HttpError } from './errors';
import { entries } from '../core/events/timeline-entries';

/** A headed run: its incident and prompt; `joined` when the fault's open incident was answered instead of a new one. */
export interface HeadedStart {
  incident: Incident;
  prompt: string;
  joined?: true;
}

/**
 * A headed run: the operator pastes the prompt into opencode's terminal UI. It is a real
 * incident from the moment the prompt is copied, so its device scope, approval, expiry,
 * timeline and session log are the same as a relay-started run's.
 */
/**
 * The prompt a copier hands out to paste: none for a joined incident, whose run is under way
 * already (a pasted copy would be a second run asking for the same change).
 */
export function promptToPaste(start: HeadedStart): string {
  if (start.joined) {
    throw new HttpError(409, 'fault_already_open', `This fault already has the open incident ${start.incident.incident_id}, with its own run: follow it and decide its approval there.`);
  }
  return start.prompt;
}

export interface HeadedIntakeDeps {
  incidents: Incidents;
  mode: 'strict' | 'hybrid';
  logger: Logger;
  /** The other devices the RAW lets a plan change, found from the alert and the inventory: the prompt names them, as a relay-started run's does. */
  planDevicesFor?: (alert: NormalizedAlert) => Promise<FoundDevice[]>;
}

export function createHeadedIntake(deps: HeadedIntakeDeps) {
  /** The fault already has a run and a gate: the headed run joins it, so one change is asked for once. */
  /** `plan`: taken over by hand, the open incident's plan as the relay recorded it, added to its prompt. */
  function join(open: Incident, plan?: HandedOverPlan): HeadedStart {
    deps.incidents.record(open.incident_id, entries.headedJoined, 'A headed run was asked for this fault: it joins this open incident (one run, one approval)');
    deps.logger.info({ incident_id: open.incident_id }, 'headed run joined the open incident of its fault');
    const prompt = plan && open.prompt_text ? renderPromptText({ ...parsePromptText(open.prompt_text), handed_over_plan: plan }) : (open.prompt_text ?? '');
    return { incident: open, prompt, joined: true };
  }

  async function startHeaded(alert: InboundAlert, mode = deps.mode): Promise<HeadedStart> {
    const normalized = normalizeAlert(alert);
    const found = deps.planDevicesFor ? await deps.planDevicesFor(normalized).catch(() => []) : [];
    const planDevices = found.flatMap((f) => ('device' in f ? [{ role: f.role, device: f.device }] : []));
    // Looked up after the plan devices were found: a run started meanwhile is joined, not doubled.
    const open = deps.incidents.findOpen(normalized.dedup_key);
    if (open) return join(open);
    const incident = deps.incidents.create(newIncidentFrom(normalized, mode, 'headed', planDevices));
    deps.logger.info({ incident_id: incident.incident_id, device: incident.device_hostname }, 'headed incident created; waiting for the operator to paste the prompt');
    return { incident, prompt: incident.prompt_text ?? '' };
  }

  /**
   * Takes over an incident by hand: a headed incident for the same fault, with the same alert
   * data (the stored prompt when there is one), once the relay's run has ended; while it is open,
   * the headed run joins it instead of asking for the same change a second time. When its change is
   * a plan, the prompt names every device of it with its lines and state, as the relay recorded them.
   */
  function startHeadedFrom(incidentId: string, mode?: 'strict' | 'hybrid'): HeadedStart | undefined {
    const source = deps.incidents.get(incidentId);
    if (!source) return undefined;
    const plan = handedOverPlan(source);
    if (source.kind === 'relay' && !isTerminal(source.state)) return join(source, plan);
    const stored = deps.incidents.promptText(incidentId);
    const parsed = stored ? parsePromptText(stored) : undefined;
    const base = {
      alert_def_id: source.alert_def_id,
      device_hostname: source.device_hostname,
      alert_vars: source.alert_vars,
      raw_message: parsed?.raw_message ?? null,
      ...(plan ? { handed_over_plan: plan } : {}),
    };
    const chosen = mode ?? source.mode;
    const incident = deps.incidents.create({
      kind: 'headed',
      alert_def_id: source.alert_def_id,
      device_hostname: source.device_hostname,
      mode: chosen,
      warnings: source.warnings,
      alert_vars: source.alert_vars,
      dedup_key: source.dedup_key,
      promptTextFor: (id) =>
        renderPromptText({ ...base, incident_id: id, mode: chosen, kb_query_mode: parsed?.kb_query_mode ?? 'standard' }),
    });
    deps.incidents.record(incident.incident_id, entries.headedFrom, `Taken over by hand from ${incidentId}`, { from: incidentId });
    return { incident, prompt: incident.prompt_text ?? '' };
  }

  return Object.assign(startHeaded, { from: startHeadedFrom });
}

export type HeadedIntake = ReturnType<typeof createHeadedIntake>;
