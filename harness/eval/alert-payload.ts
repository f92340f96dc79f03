import type { RawTestCase } from '../../src/runbooks/schema-test-case';

/**
 * A test case's alert as a Splunk webhook would post it: the saved search's envelope, the
 * alert definition id, the router, `extra` (on FRR `device_platform: frr`, as the lab's detector
 * sends it), the case's alert_vars, and the log line when it has one.
 */
export function alertPayload(alertDefId: string, title: string, tc: RawTestCase, extra: Record<string, string> = {}, now = new Date()) {
  const epoch = Math.floor(now.getTime() / 1000);
  const sid = `scheduler__eval__search__${alertDefId}_at_${epoch}_${now.getMilliseconds()}`;
  return {
    sid,
    search_name: title,
    app: 'search',
    owner: 'eval',
    results_link: `https://splunk.example.net:8000/app/search/search?q=%7Cloadjob%20${sid}`,
    // The quickest KB depth: the eval scores the agents on the runbook, not on KB reading depth.
    kb_query_mode: 'quick',
    result: {
      alert_def_id: alertDefId,
      system: tc.alert.device_hostname,
      _time: String(epoch),
      ...extra,
      ...tc.alert.alert_vars,
      ...(tc.alert.raw_message ? { _raw: tc.alert.raw_message } : {}),
    },
  };
}
