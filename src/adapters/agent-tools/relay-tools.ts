import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from 'pino';
import type { Approvals } from '../../core/approvals/approvals';
import type { OperatorChannel } from '../../core/approvals/operator-channel';
import type { Incidents } from '../../core/incidents/service';
import type { Clock } from '../../core/clock';
import type { PreviewConfig } from '../device-tools/approval-preview';
import type { FoundDevice } from '../../runbooks/plan-devices';
import type { QuarantineEntry } from '../../core/quarantine/entry';
import { traceToolCalls } from '../telemetry/traced-tools';
import { registerRequestApproval } from './approval-tool';
import { registerNotify } from './notify-tool';
import { registerReportOutcome } from './outcome-tool';
import { registerWait } from './wait-tool';

export { WAIT_MAX_S } from './wait-tool';

export interface RelayToolsDeps {
  clock: Clock;
  incidents: Incidents;
  approvals: Approvals;
  /** The operator channels a notice goes to (all of them). */
  channels: readonly OperatorChannel[];
  logger: Logger;
  /** The device tools' dry run; without it approval requests carry no preview. */
  preview?: PreviewConfig;
  /** The device's quarantine as last read: every notice about a quarantined device says so. */
  quarantined?(device: string): QuarantineEntry | undefined;
  /** The other devices the incident's RAW lets a plan change (found from the alert and the inventory). */
  planDevices?(incidentId: string): Promise<FoundDevice[]>;
}

/**
 * The only way the agents reach the operator. Because every approval goes through
 * here, the relay always knows when one is pending and can raise it everywhere.
 */
export function createRelayToolsServer(deps: RelayToolsDeps): McpServer {
  const { incidents } = deps;
  const server = traceToolCalls(new McpServer(
    { name: 'fault-relay', version: '1.0.0' },
    { instructions: 'Operator channel of the fault relay: notify the room, request approvals, report the outcome, wait between RAW steps.' },
  ), incidents.get);

  registerNotify(server, deps);
  registerRequestApproval(server, deps);
  registerReportOutcome(server, deps);
  registerWait(server, deps);
  return server;
}
