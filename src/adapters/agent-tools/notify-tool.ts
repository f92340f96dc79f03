import { z } from 'zod';
import { AGENT_MESSAGE_LABEL } from '../../core/approvals/inert-text';
import { quarantineLine } from '../../core/quarantine/entry';
import { CHANGE_WORDS_TITLE, changeWords, withoutConfigClaims } from '../../core/incidents/outcome-words';
import { entries } from '../../core/events/timeline-entries';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RelayToolsDeps } from './relay-tools';
import { incidentId, refuse, text } from './tool-results';
import { errorText } from '../../core/error-body';

/** The timeline entry of each kind of message the agents post. */
const NOTIFY = { 'fault-received': entries.notifyFaultReceived, 'step-progress': entries.notifyStepProgress, final: entries.notifyFinal } as const;

/** `notify`: a message from the agents to the operators' room, and to the incident's timeline. */
export function registerNotify(server: McpServer, deps: RelayToolsDeps): void {
  const { incidents, channels, logger } = deps;
  server.registerTool(
    'notify',
    {
      title: 'Notify the operators',
      description: 'Posts a Markdown message to the operators\' room and the incident timeline. kind: fault-received (after loading artifacts and KB), step-progress (after each RAW step), final (after the outcome).',
      inputSchema: {
        incident_id: incidentId,
        kind: z.enum(['fault-received', 'step-progress', 'final']),
        markdown: z.string().min(1).max(20_000),
      },
    },
    async ({ incident_id, kind, markdown: given }) => {
      const incident = incidents.get(incident_id);
      if (!incident) return refuse(`unknown incident ${incident_id}: use the incident_id from the alert prompt`);
      // The final message says how the change ended from the relay's record, in the relay's own words
      // outside the agent's quote; the model's claims about it are left out of what it wrote.
      const said = kind === 'final' ? withoutConfigClaims(given).text : given;
      const record = kind === 'final' ? `**${CHANGE_WORDS_TITLE}:** ${changeWords(incident)}` : undefined;
      incidents.record(incident_id, NOTIFY[kind], (record ? `${said}\n\n${record}` : said).slice(0, 2000), { kind });
      if (channels.length === 0) return text({ posted: false, recorded: true, note: 'No operator room is configured; the message is in the incident timeline.' });
      const held = deps.quarantined?.(incident.device_hostname);
      const header = `**${incident_id}** · ${kind}${held ? `\n\n⛔ ${quarantineLine(held)}` : ''}${record ? `\n\n${record}` : ''}`;
      const results = await Promise.allSettled(channels.map((c) => c.tell(header, { label: AGENT_MESSAGE_LABEL, text: said })));
      const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [`${channels[i]!.name}: ${errorText(r.reason)}`] : []));
      if (failed.length === 0) return text({ posted: true, recorded: true });
      logger.error({ incident_id, failed }, 'notify could not post to the room');
      return refuse(`the room did not take the message (${channels.length > 1 ? failed.join('; ') : failed[0]!.replace(/^[^:]*: /, '')}); it is in the incident timeline`);
    },
  );
}
