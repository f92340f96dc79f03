import { incidentIdFor } from '../incidents/ids';
import { normalizeAlert } from './normalize';
import { buildAgentPrompt, renderPromptText } from './prompt';
import { inboundAlertSchema } from './schema';

/**
 * Incident ids of headed runs: the run lives in the terminal UI, not behind the relay,
 * so the relay's tools answer `headed` and the operator types the decision there.
 */
export const HEADED_PREFIX = 'HEADED-';

/**
 * The headed-mode prompt for an alert body: exactly what the relay would send,
 * so an engineer pasting it into the terminal UI starts the same run.
 */
export function directPrompt(alertBody: unknown, opts: { mode: 'strict' | 'hybrid'; incidentId?: string; now?: Date }): string {
  const alert = inboundAlertSchema.parse(alertBody);
  const incidentId = opts.incidentId ?? incidentIdFor(opts.now ?? new Date(), () => false).replace(/^INC-/, HEADED_PREFIX);
  return renderPromptText(buildAgentPrompt(normalizeAlert(alert), incidentId, opts.mode));
}
