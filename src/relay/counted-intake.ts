import type { AlertSources } from './alert-sources';
import type { Intake } from './intake';
import type { RelayMetrics } from './metrics';

/** Counted where the sender's answer is known: the route's intake (Splunk) and the batch answer (Alertmanager …). */
export function countedIntake(intake: Intake, alertSources: Pick<AlertSources, 'sources' | 'accept'>, metrics: RelayMetrics) {
  const splunk: Intake = async (alert) => {
    const answer = await intake(alert);
    metrics.alertAnswered('splunk', answer.status);
    return answer;
  };
  const sources = {
    sources: alertSources.sources,
    accept: async (...args: Parameters<typeof alertSources.accept>) => {
      const answer = await alertSources.accept(...args);
      for (const a of answer.accepted) metrics.alertAnswered(args[0], a.status);
      metrics.alertAnswered(args[0], 'resolved', answer.resolved.length);
      metrics.alertAnswered(args[0], 'invalid', answer.unmatched.length);
      return answer;
    },
  };
  return { intake: splunk, sources };
}
