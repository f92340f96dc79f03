import { z } from 'zod';
import { isTerminal } from '../../core/incidents/model';
import type { IncidentEvent } from '../../core/incidents/state';
import { changeWords, withoutConfigClaims } from '../../core/incidents/outcome-words';
import { entries } from '../../core/events/timeline-entries';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RelayToolsDeps } from './relay-tools';
import { incidentId, refuse, text } from './tool-results';

/** The incident event each outcome the agent reports is (src/core/incidents/state.ts). */
const OUTCOME_EVENT = { resolved: 'resolve', escalated: 'escalate', failed: 'fail' } as const satisfies Record<string, IncidentEvent>;

/** `report_outcome`: the agents end the incident; what became of a change stays the relay's to say. */
export function registerReportOutcome(server: McpServer, deps: RelayToolsDeps): void {
  const { incidents, logger, clock } = deps;
  server.registerTool(
    'report_outcome',
    {
      title: 'Report the outcome of the run',
      description: 'Ends the incident: resolved, escalated or failed, with a summary. Call once, then send the final notification.',
      inputSchema: {
        incident_id: incidentId,
        outcome: z.enum(['resolved', 'escalated', 'failed']),
        summary: z.string().min(1).max(8000),
      },
    },
    async ({ incident_id, outcome, summary }) => {
      const incident = incidents.get(incident_id);
      if (!incident) return refuse(`unknown incident ${incident_id}: use the incident_id from the alert prompt`);
      if (isTerminal(incident.state)) {
        return refuse(`${incident_id} already ended as ${incident.state} at ${incident.outcome?.at ?? incident.updated_at}; a second outcome is refused`);
      }
      if (incident.state === 'awaiting_approval') {
        return refuse(`${incident_id} is awaiting an operator decision; wait for the HUMAN OPERATOR RESPONSE before reporting an outcome`);
      }
      if (incident.state === 'queued') return refuse(`${incident_id} has not started yet`);
      const event = OUTCOME_EVENT[outcome];
      if (!incidents.can(incident_id, event)) return refuse(`${incident_id} is ${incident.state}; it cannot end as ${outcome} now`);
      const at = clock.now().toISOString();
      // What became of the configuration is the change record's to say (shown beside the outcome everywhere), not the summary's.
      const { text: kept, removed } = withoutConfigClaims(summary);
      incidents.transition(incident_id, event, () => ({ outcome: { kind: outcome, summary: kept, at, by: 'agent' } }));
      incidents.record(incident_id, entries.outcomeReported, `${outcome}: ${kept.slice(0, 1000)}`, { outcome });
      if (removed.length) {
        incidents.record(incident_id, entries.outcomeClaimsRemoved, `${removed.length} sentence(s) about what became of the configuration left out of the reported outcome: the relay's change record says how the change ended`, { removed: removed.length });
      }
      logger.info({ incident_id, outcome, change: changeWords(incidents.get(incident_id) ?? incident) }, 'outcome reported');
      return text({ recorded: true, state: outcome });
    },
  );
}
