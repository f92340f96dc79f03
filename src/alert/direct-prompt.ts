import { HEADED_PREFIX, incidentIdFor } from '../incidents/ids';
import { normalizeAlert } from './normalize';
import { buildAgentPrompt, renderPromptText } from './prompt';
import { inboundAlertSchema } from './schema';

export { HEADED_PREFIX };

/**
 * The headed-mode prompt for an alert body, rendered offline: exactly what the relay would send.
 * Only for previews: a headed run's approvals need the incident the relay creates
 * (`POST /headed`), so `npm run simulate -- --direct` asks the relay for it.
 */
export function directPrompt(alertBody: unknown, opts: { mode: 'strict' | 'hybrid'; incidentId?: string; now?: Date }): string {
  const alert = inboundAlertSchema.parse(alertBody);
  const incidentId = opts.incidentId ?? incidentIdFor(opts.now ?? new Date(), () => false, HEADED_PREFIX);
  return renderPromptText(buildAgentPrompt(normalizeAlert(alert), incidentId, opts.mode));
}
