import { formatProblems } from '../../runbooks/alert-formats';
import { ruleKey } from '../../runbooks/fault-key';
import type { AlertmanagerDefinition } from '../../runbooks/source-mappings';
import { checkFormat } from '../../runbooks/variables';
import { alertmanagerWebhookSchema, type AlertmanagerAlert } from './alertmanager-webhook';
import { cap, instructionsWarning, keyOf, MAX_VAR_CHARS } from './normalize';
import type { FieldSource, NormalizedAlert } from '../../core/incidents/normalized-alert';
import { hostAsDevice } from './schema';
import { KB_QUERY_MODES, type KbQueryMode } from '../../core/incidents/normalized-alert';
import type { AlertSource, BatchAlert, UnmatchedAlert } from '../../core/incidents/alert-source';

/**
 * The Alertmanager adapter. An alert is this relay's fault when its labels carry an alert
 * definition's `sources.alertmanager.match` (in that definition's FS), and its key fields are the
 * labels that mapping names. Resolved alerts are mapped the same way: the key finds their incident.
 */
export function createAlertmanagerSource(deps: { definitions: () => Promise<readonly AlertmanagerDefinition[]> }): AlertSource<typeof alertmanagerWebhookSchema> {
  return {
    name: 'alertmanager',
    body: alertmanagerWebhookSchema,
    async read(body) {
      const definitions = await deps.definitions();
      const alerts: BatchAlert[] = [];
      const unmatched: UnmatchedAlert[] = [];
      body.alerts.forEach((alert, i) => {
        const ref = alert.fingerprint || `alerts[${i}]`;
        const mapped = mapAlert(alert, definitions);
        if ('reason' in mapped) unmatched.push({ ref, status: alert.status, name: alert.labels.alertname ?? null, reason: mapped.reason });
        else {
          const resolvedAt = alert.status === 'resolved' && alert.endsAt ? { resolved_at: alert.endsAt } : {};
          alerts.push({ ref, status: alert.status, alert_def_id: mapped.alert_def_id, dedup_key: mapped.dedup_key, normalized: () => mapped, ...resolvedAt });
        }
      });
      return { alerts, unmatched };
    },
  };
}

const describeLabels = (labels: Readonly<Record<string, string>>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(', ');

/** The normalized alert, or why this alert is none of the relay's faults. */
function mapAlert(alert: AlertmanagerAlert, definitions: readonly AlertmanagerDefinition[]): NormalizedAlert | { reason: string } {
  const matching = definitions.filter((d) => Object.entries(d.match).every(([label, value]) => alert.labels[label] === value));
  if (matching.length === 0) return { reason: 'no alert definition matches its labels (see sources.alertmanager.match in the FS files)' };
  // Never guess between two runbooks.
  if (matching.length > 1) return { reason: `its labels match more than one alert definition (${matching.map((d) => d.alert_def_id).join(', ')}): make their sources.alertmanager.match distinct` };
  const definition = matching[0]!;

  const values: Record<string, string> = {};
  const problems: string[] = [];
  for (const rule of definition.fields) {
    const label = alert.labels[rule.label];
    if (label === undefined || label === '') {
      if (rule.required) problems.push(`label ${rule.label} (${rule.variable}) is missing`);
      continue;
    }
    const value = rule.regex ? rule.regex.exec(label)?.groups?.value : label;
    if (!value) problems.push(`label ${rule.label}="${label}" does not match the regex that takes ${rule.variable} out of it`);
    else if (!checkFormat(rule.format, value) || (rule.variable === 'device_hostname' && !hostAsDevice(value))) {
      problems.push(`label ${rule.label}="${label}" is not a valid ${rule.format} for ${rule.variable}`);
    } else values[rule.variable] = value;
  }
  if (problems.length > 0) return { reason: `${problems.join('; ')} (mapping of ${definition.alert_def_id}; labels: ${describeLabels(alert.labels)})` };
  const made = normalized(alert, definition, values);
  // Every value the run's commands may carry, whichever label or annotation brought it in under that name.
  const where = (key: string) => {
    const mapped = definition.fields.find((f) => f.key === key && values[f.variable] !== undefined);
    return mapped ? `labels.${mapped.label}` : key in alert.labels ? `labels.${key}` : `annotations.${key}`;
  };
  const refused = formatProblems(made.alert_vars, definition.formats, where);
  if (refused.length > 0) return { reason: `${refused.map((p) => `${p.path} ${p.message}`).join('; ')}: nothing was run (alert definition ${definition.alert_def_id})` };
  return made;
}

function normalized(alert: AlertmanagerAlert, definition: AlertmanagerDefinition, values: Record<string, string>): NormalizedAlert {
  const warnings: string[] = [];
  const vars: Record<string, string> = {};
  const taken = new Set(definition.fields.map((f) => f.label));
  // The other labels and the annotations go to the agent under their own names, as Splunk's other
  // result fields do (a `severity` label sets the incident's severity the same way).
  for (const [name, value] of Object.entries(alert.labels)) if (!taken.has(name)) vars[name] = cap(value, MAX_VAR_CHARS, `labels.${name}`, warnings);
  for (const [name, value] of Object.entries(alert.annotations)) if (!(name in vars)) vars[name] = cap(value, MAX_VAR_CHARS, `annotations.${name}`, warnings);
  // The sender's references, as Splunk's search metadata (sid, results_link); `_time` as Splunk
  // gives it, for the KB's maintenance-window check.
  if (alert.fingerprint) vars.fingerprint = alert.fingerprint;
  vars.starts_at = alert.startsAt;
  const started = Date.parse(alert.startsAt);
  if (Number.isFinite(started)) vars._time = String(Math.floor(started / 1000));
  if (alert.generatorURL) vars.generator_url = cap(alert.generatorURL, MAX_VAR_CHARS, 'generatorURL', warnings);
  for (const rule of definition.fields) {
    const value = values[rule.variable];
    if (value !== undefined && rule.variable !== 'device_hostname') vars[rule.key] = cap(value, MAX_VAR_CHARS, `labels.${rule.label}`, warnings);
  }

  const suspicious = instructionsWarning(vars);
  if (suspicious) warnings.push(suspicious);
  const hostname = values.device_hostname as string;
  const from = (variable: string): FieldSource => (values[variable] !== undefined ? 'label' : 'absent');
  const mode = alert.labels.kb_query_mode;
  return {
    alert_def_id: definition.alert_def_id,
    device_hostname: hostname,
    alert_vars: vars,
    // Alertmanager carries no log line: the run works from the labels and the device.
    raw_message: null,
    kb_query_mode: (KB_QUERY_MODES as readonly string[]).includes(mode ?? '') ? (mode as KbQueryMode) : 'standard',
    warnings,
    // The same key a Splunk alert of the fault gets: values are by FS variable name on both.
    dedup_key: definition.key ? ruleKey(definition.key, hostname, values) : keyOf(definition.alert_def_id, hostname, values.neighbor_ip, values.vrf_name),
    field_sources: {
      device_hostname: 'label',
      neighbor_ip: from('neighbor_ip'),
      vrf_name: from('vrf_name'),
      ...Object.fromEntries((definition.key?.fields ?? []).map((f) => [f.name, from(f.name)])),
    },
  };
}
