import { normalizeAlert } from '../../src/adapters/alert-sources/normalize';
import { buildAgentPrompt, renderPromptText } from '../../src/core/incidents/agent-prompt';
import { inboundAlertSchema } from '../../src/adapters/alert-sources/schema';

/** The prompt the relay sends for an alert body under an incident id: what a copied headed prompt must equal. */
export function promptFor(alertBody: unknown, incidentId: string, mode: 'strict' | 'hybrid'): string {
  return renderPromptText(buildAgentPrompt(normalizeAlert(inboundAlertSchema.parse(alertBody)), incidentId, mode));
}
