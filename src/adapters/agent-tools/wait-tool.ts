import { z } from 'zod';
import { isTerminal } from '../../core/incidents/model';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RelayToolsDeps } from './relay-tools';
import { incidentId, refuse, text } from './tool-results';

/**
 * The longest `wait` call. The agents have no shell, so RAW waits are the relay's; a call must end
 * before the relay's HTTP server closes an idle connection (connectionTimeout, 60 s) and before
 * opencode's MCP timeout for `relay` (opencode.json; a test holds the two together).
 */
export const WAIT_MAX_S = 50;

/** `wait`: the RAW's waits and retry intervals, held by the relay. */
export function registerWait(server: McpServer, deps: RelayToolsDeps): void {
  const { incidents, clock } = deps;
  server.registerTool(
    'wait',
    {
      title: 'Wait',
      description: `Waits the given seconds (a RAW wait or retry interval), at most ${WAIT_MAX_S} per call: split a longer wait into several calls. Refused for an unknown or ended incident.`,
      inputSchema: { incident_id: incidentId, seconds: z.number().min(0).max(WAIT_MAX_S) },
    },
    async ({ incident_id, seconds }, extra) => {
      const incident = incidents.get(incident_id);
      if (!incident) return refuse(`unknown incident ${incident_id}: use the incident_id from the alert prompt`);
      if (isTerminal(incident.state)) return refuse(`${incident_id} already ended as ${incident.state}; there is nothing to wait for`);
      await new Promise<void>((resolve) => {
        const timer = clock.setTimeout(resolve, seconds * 1000);
        // The runtime gave up on the call (aborted run, MCP timeout): stop holding it.
        extra.signal.addEventListener('abort', () => (timer.cancel(), resolve()), { once: true });
      });
      return text({ waited_s: seconds, state: incidents.get(incident_id)?.state ?? incident.state });
    },
  );
}
