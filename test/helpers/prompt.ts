import { normalizeAlert } from '../../src/alert/normalize';
import { buildAgentPrompt, renderPromptText } from '../../src/alert/prompt';
import { inboundAlertSchema } from '../../src/alert/schema';

/** The prompt the relay sends for an alert body under an incident id: what a copied headed prompt must equal. */
export function promptFor(alertBody: unknown, incidentId: string, mode: 'strict' | 'hybrid'): string {
  return renderPromptText(buildAgentPrompt(normalizeAlert(inboundAlertSchema.parse(alertBody)), incidentId, mode));
}
