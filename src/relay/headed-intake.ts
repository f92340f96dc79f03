import type { Logger } from 'pino';
import { normalizeAlert } from '../alert/normalize';
import { parsePromptText, renderPromptText } from '../alert/prompt';
import type { InboundAlert } from '../alert/schema';
import type { Incident } from '../incidents/model';
import { newIncidentFrom, type Incidents } from '../incidents/service';

/**
 * A headed run: the operator pastes the prompt into opencode's terminal UI. It is a real
 * incident from the moment the prompt is copied, so its device scope, approval, expiry,
 * timeline and session log are the same as a relay-started run's.
 */
export function createHeadedIntake(deps: { incidents: Incidents; mode: 'strict' | 'hybrid'; logger: Logger }) {
  function startHeaded(alert: InboundAlert, mode = deps.mode): { incident: Incident; prompt: string } {
    const normalized = normalizeAlert(alert);
    const incident = deps.incidents.create(newIncidentFrom(normalized, mode, 'headed'));
    deps.logger.info({ incident_id: incident.incident_id, device: incident.device_hostname }, 'headed incident created; waiting for the operator to paste the prompt');
    return { incident, prompt: incident.prompt_text ?? '' };
  }

  /**
   * Takes over an incident by hand: a headed incident for the same fault, with the same alert
   * data (the stored prompt when there is one). The original keeps its own run and gate.
   */
  function startHeadedFrom(incidentId: string, mode?: 'strict' | 'hybrid'): { incident: Incident; prompt: string } | undefined {
    const source = deps.incidents.get(incidentId);
    if (!source) return undefined;
    const stored = deps.incidents.promptText(incidentId);
    const raw = stored ? parsePromptText(stored).raw_message : null;
    const base = { alert_def_id: source.alert_def_id, device_hostname: source.device_hostname, alert_vars: source.alert_vars, raw_message: raw };
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
        renderPromptText({ ...base, incident_id: id, mode: chosen, kb_query_mode: stored ? parsePromptText(stored).kb_query_mode : 'standard' }),
    });
    deps.incidents.record(incident.incident_id, 'headed.from', `Taken over by hand from ${incidentId}`, { from: incidentId });
    return { incident, prompt: incident.prompt_text ?? '' };
  }

  return Object.assign(startHeaded, { from: startHeadedFrom });
}

export type HeadedIntake = ReturnType<typeof createHeadedIntake>;
