import type { Logger } from 'pino';
import { normalizeAlert } from '../alert/normalize';
import { buildAgentPrompt, renderPromptText } from '../alert/prompt';
import type { InboundAlert } from '../alert/schema';
import type { Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';

/**
 * A headed run: the operator pastes the prompt into opencode's terminal UI. It is a real
 * incident from the moment the prompt is copied, so its device scope, approval, expiry,
 * timeline and session log are the same as a relay-started run's.
 */
export function createHeadedIntake(deps: { incidents: Incidents; mode: 'strict' | 'hybrid'; logger: Logger }) {
  return function startHeaded(alert: InboundAlert, mode = deps.mode): { incident: Incident; prompt: string } {
    const normalized = normalizeAlert(alert);
    const incident = deps.incidents.create({
      kind: 'headed',
      alert_def_id: normalized.alert_def_id,
      device_hostname: normalized.device_hostname,
      mode,
      warnings: normalized.warnings,
      alert_vars: normalized.alert_vars,
      dedup_key: normalized.dedup_key,
      promptTextFor: (id) => renderPromptText(buildAgentPrompt(normalized, id, mode)),
    });
    deps.logger.info({ incident_id: incident.incident_id, device: incident.device_hostname }, 'headed incident created; waiting for the operator to paste the prompt');
    return { incident, prompt: incident.prompt_text ?? '' };
  };
}

export type HeadedIntake = ReturnType<typeof createHeadedIntake>;
