import { trace } from '@opentelemetry/api';
import type { ChannelHost } from '../../core/approvals/operator-channel';
import { inIncidentSpan, TRACE_ATTRIBUTES, type TracedIncident } from './incident-trace';
import { tracingActive } from './sdk';

/**
 * A person's decision from a channel (the Webex card over Mercury, a Slack click over Socket Mode,
 * any other adapter) as an `approval.decision` span in its incident's trace: the channel, the
 * request the person was shown, the decision and what the relay answered; never the lines or the
 * person. What the decision sets off (the acknowledgements on every channel) nests under it.
 */
export function traceChannelDecisions(host: ChannelHost, incident: (id: string) => TracedIncident | undefined): ChannelHost {
  if (!tracingActive()) return host;
  return {
    ...host,
    decide(input) {
      const known = typeof input.incident_id === 'string' ? incident(input.incident_id) : undefined;
      // A decision for no incident this relay knows has no trace to join: the host answers it as before.
      if (!known?.trace) return host.decide(input);
      const attributes = {
        [TRACE_ATTRIBUTES.request]: String(input.request_id).slice(0, 200),
        'fault_relay.approval.channel': String(input.channel).slice(0, 40),
        'fault_relay.approval.decision': input.decision === 'APPROVED' ? 'APPROVED' : 'DENIED',
      };
      return inIncidentSpan(known, 'approval.decision', attributes, async () => {
        const result = await host.decide(input);
        trace.getActiveSpan()?.setAttribute('fault_relay.approval.result', result.status);
        return result;
      });
    },
  };
}
