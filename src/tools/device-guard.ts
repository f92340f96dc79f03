import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HEADED_PREFIX } from '../alert/direct-prompt';
import type { DeviceTools } from '../artifacts/device-tools';
import type { Incidents } from '../incidents/service';
import { checkConfig, checkExec, isReadOnlyCommand, normalizeLine, type Verdict } from './device-policy';

export interface HeadedApprovals {
  /** The lines a headed run showed its operator; the operator's answer is typed in the terminal. */
  take(incidentId: string): { device: string; commands: string[] } | undefined;
  peek(incidentId: string): { device: string; commands: string[] } | undefined;
}

export interface DeviceGuardDeps {
  incidents: Incidents;
  /** The real device tool server (DEVICE_MCP_URL); absent: every call is refused with why. */
  upstream?: DeviceTools;
  /** Rendered read-only commands of the incident's RAW, for strict mode. */
  strictAllowList(incidentId: string): Promise<string[]>;
  headed: HeadedApprovals;
  logger: Logger;
}

const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });
const err = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
const excerpt = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * The agents' only way to the devices. The policy is enforced here, in code, not
 * in a prompt: reads within the RAW (strict), configuration only as approved.
 */
export function createDeviceGuardServer(deps: DeviceGuardDeps): McpServer {
  const { incidents, upstream, logger } = deps;
  const server = new McpServer(
    { name: 'fault-relay-device-guard', version: '1.0.0' },
    { instructions: 'Device tools behind the fault relay: exec_cli for read-only show commands, config_cli for approved configuration only.' },
  );

  const refuse = (incidentId: string, tool: string, reason: string) => {
    if (incidents.get(incidentId)) incidents.record(incidentId, 'device.refused', `${tool} refused: ${reason}`, { tool, reason });
    logger.warn({ incident_id: incidentId, tool }, `device call refused: ${reason}`);
    return err(`REFUSED by the relay's device guard: ${reason}`);
  };

  const forward = async (incidentId: string, tool: 'exec_cli' | 'config_cli', call: (t: DeviceTools) => Promise<string>, record: (output: string) => void) => {
    if (!upstream) return refuse(incidentId, tool, 'no device tool server is configured on the relay (DEVICE_MCP_URL)');
    try {
      const output = await call(upstream);
      record(output);
      return ok(output);
    } catch (error) {
      const message = (error as Error).message;
      if (incidents.get(incidentId)) incidents.record(incidentId, 'device.error', `${tool} failed: ${excerpt(message, 300)}`, { tool });
      return err(message);
    }
  };

  server.registerTool(
    'exec_cli',
    {
      title: 'Run a read-only show command',
      description: 'Runs one show command on the incident\'s device. Strict mode: only the commands of the RAW.',
      inputSchema: {
        incident_id: z.string().min(1).max(64),
        device: z.string().min(1).max(253),
        command: z.string().min(1).max(500),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ incident_id, device, command }) => {
      let verdict: Verdict;
      if (incident_id.startsWith(HEADED_PREFIX)) {
        verdict = isReadOnlyCommand(command) ? { allow: true } : { allow: false, reason: 'exec_cli runs one read-only show command' };
      } else {
        const incident = incidents.get(incident_id);
        if (!incident) return refuse(incident_id, 'exec_cli', `unknown incident ${incident_id}`);
        verdict = checkExec({ incident, device, command, strictAllowList: incident.mode === 'strict' ? await deps.strictAllowList(incident_id) : [] });
      }
      if (!verdict.allow) return refuse(incident_id, 'exec_cli', verdict.reason);
      return forward(incident_id, 'exec_cli', (t) => t.execCli(device, command), (output) => {
        if (incidents.get(incident_id)) incidents.record(incident_id, 'device.exec', `${device}# ${command}`, { device, command, output: excerpt(output) });
      });
    },
  );

  server.registerTool(
    'config_cli',
    {
      title: 'Apply approved configuration lines',
      description: 'Applies exactly the configuration lines the operator APPROVED for this incident, once.',
      inputSchema: {
        incident_id: z.string().min(1).max(64),
        device: z.string().min(1).max(253),
        commands: z.array(z.string().min(1).max(500)).min(1).max(200),
      },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    async ({ incident_id, device, commands }) => {
      let verdict: Verdict;
      if (incident_id.startsWith(HEADED_PREFIX)) {
        const shown = deps.headed.peek(incident_id);
        const same = shown && shown.device.toLowerCase() === device.toLowerCase() && shown.commands.map(normalizeLine).join('\n') === commands.map(normalizeLine).join('\n');
        verdict = same ? { allow: true } : { allow: false, reason: 'headed run: only the exact lines shown to the operator through relay_request_approval may be applied' };
      } else {
        const incident = incidents.get(incident_id);
        if (!incident) return refuse(incident_id, 'config_cli', `unknown incident ${incident_id}`);
        verdict = checkConfig({ incident, device, commands, timeline: incidents.timeline(incident_id) });
      }
      if (!verdict.allow) return refuse(incident_id, 'config_cli', verdict.reason);
      return forward(incident_id, 'config_cli', (t) => t.configCli(device, commands), (output) => {
        if (incident_id.startsWith(HEADED_PREFIX)) deps.headed.take(incident_id);
        else incidents.record(incident_id, 'device.config_applied', `Applied on ${device}: ${commands.join(' / ')}`, { device, commands, output: excerpt(output) });
        logger.info({ incident_id, device, lines: commands.length }, 'approved configuration applied');
      });
    },
  );

  return server;
}
