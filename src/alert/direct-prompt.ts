import { incidentIdFor } from '../incidents/ids';
import { normalizeAlert } from './normalize';
import { buildAgentPrompt, renderPromptText } from './prompt';
import { inboundAlertSchema } from './schema';

/**
 * The headed-mode prompt for an alert body: exactly what the relay would send,
 * so an engineer pasting it into the terminal UI starts the same run.
 */
export function directPrompt(alertBody: unknown, opts: { mode: 'strict' | 'hybrid'; incidentId?: string; now?: Date }): string {
  const alert = inboundAlertSchema.parse(alertBody);
  const incidentId = opts.incidentId ?? incidentIdFor(opts.now ?? new Date(), () => false);
  return renderPromptText(buildAgentPrompt(normalizeAlert(alert), incidentId, opts.mode));
}
