import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { parse } from 'yaml';
import { alertFormats, type AlertFormats } from './alert-formats';
import { namedGroups } from './expectations';
import { faultKeyRule, type FaultKeyRule } from './fault-key';
import { faultSignatureSchema, type FaultSignature, type VariableFormat } from './schema-fs';
import type { LabelField } from './schema-sources';

/** One FS variable an Alertmanager alert's label carries, ready to apply. */
export interface LabelFieldRule {
  variable: string;
  /** The name the alert gives it in `alert_vars` (the FS variable's `alert_field`, else its name). */
  key: string;
  label: string;
  /** Takes the `value` group out of the label's value. */
  regex?: RegExp;
  format: VariableFormat;
  /** A required FS variable (and the device): an alert without it cannot be this fault's run. */
  required: boolean;
}

/** An alert definition as an Alertmanager alert is matched against it. */
export interface AlertmanagerDefinition {
  alert_def_id: string;
  match: Readonly<Record<string, string>>;
  fields: readonly LabelFieldRule[];
  /** The FS's fault key (`key_fields`); absent: the BGP key. */
  key?: FaultKeyRule;
  /** The formats of every value the runbook may render into a command, whichever label or annotation carries it. */
  formats: AlertFormats;
}

const yamlOrUndefined = (text: string): unknown => {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
};

/** A problem of a mapping, positioned by its path in FS.yaml. */
export interface MappingProblem {
  path: (string | number)[];
  message: string;
  hint: string;
}

const labelOf = (field: LabelField): { label: string; regex?: string } => (typeof field === 'string' ? { label: field } : field);

/**
 * What the validator holds an FS's `sources.alertmanager` to, as [path, message] pairs: a mapping
 * that names an unknown variable, or leaves a required one out, would start runs that can only
 * escalate.
 */
export function alertmanagerMappingProblems(fs: FaultSignature): MappingProblem[] {
  const mapping = fs.sources?.alertmanager;
  if (!mapping) return [];
  const base = ['sources', 'alertmanager'];
  const problems: MappingProblem[] = [];
  const variables = new Map(fs.variables.map((v) => [v.name, v]));
  for (const [name, field] of Object.entries(mapping.fields)) {
    const variable = variables.get(name);
    if (!variable) problems.push({ path: [...base, 'fields', name], message: `${name} is not a variable of the FS (FS variables: ${[...variables.keys()].join(', ')})`, hint: 'map only FS variables: correct the name or declare the variable' });
    else if (!variable.sources.includes('alert')) problems.push({ path: [...base, 'fields', name], message: `variable ${name} does not come from the alert (its sources do not include alert)`, hint: `add alert to the sources of ${name}, or remove the mapping` });
    const { regex } = labelOf(field);
    if (regex === undefined) continue;
    try {
      new RegExp(regex);
      if (!namedGroups(regex).includes('value')) problems.push({ path: [...base, 'fields', name, 'regex'], message: 'the regex needs a (?<value>…) group: the part of the label that is the value', hint: "wrap the value part in (?<value>…), e.g. '^(?<value>[^:]+)'" });
    } catch (e) {
      problems.push({ path: [...base, 'fields', name, 'regex'], message: `regex does not compile: ${(e instanceof Error ? e.message : String(e))}`, hint: 'fix the JavaScript regular expression' });
    }
  }
  if (!('device_hostname' in mapping.fields)) problems.push({ path: [...base, 'fields'], message: 'map device_hostname to the label that names the device', hint: "add device_hostname: <label> under fields, e.g. device_hostname: { label: instance, regex: '^(?<value>[^:]+)' }" });
  fs.required_alert_fields.forEach((required) => {
    if (!required.split('|').some((n) => n in mapping.fields)) {
      problems.push({ path: [...base, 'fields'], message: `required alert field ${required} is not mapped to a label: every such alert would escalate`, hint: `add ${required.split('|')[0]}: <label> under fields` });
    }
  });
  return problems;
}

/** The mapping as the adapter applies it; undefined when the FS has none (or an invalid one). */
export function alertmanagerDefinition(fs: FaultSignature): AlertmanagerDefinition | undefined {
  const mapping = fs.sources?.alertmanager;
  if (!mapping || alertmanagerMappingProblems(fs).length > 0) return undefined;
  const fields = Object.entries(mapping.fields).map(([name, field]): LabelFieldRule => {
    const variable = fs.variables.find((v) => v.name === name)!;
    const { label, regex } = labelOf(field);
    return {
      variable: name,
      key: variable.alert_field ?? name,
      label,
      ...(regex ? { regex: new RegExp(regex) } : {}),
      format: variable.format,
      required: variable.required || name === 'device_hostname',
    };
  });
  const key = faultKeyRule(fs);
  return { alert_def_id: fs.alert_def_id, match: mapping.match, fields, formats: alertFormats(fs), ...(key ? { key } : {}) };
}

/**
 * The Alertmanager mappings of every artifact group under `artifactsDir`. Read when asked, each FS
 * parsed again only when its file changed: an edited FS applies to the next notification without a
 * restart, and a notification costs a `stat` per group.
 */
export function createAlertmanagerDefinitions(artifactsDir: string, logger: Logger) {
  const cache = new Map<string, { version: string; definition: AlertmanagerDefinition | undefined }>();
  async function read(id: string): Promise<AlertmanagerDefinition | undefined> {
    const file = join(artifactsDir, id, 'FS.yaml');
    const version = await stat(file).then((s) => `${s.mtimeMs}:${s.size}`, () => undefined);
    if (version === undefined) return undefined;
    const cached = cache.get(id);
    if (cached?.version === version) return cached.definition;
    let definition: AlertmanagerDefinition | undefined;
    const text = await readFile(file, 'utf8');
    const parsed = faultSignatureSchema.safeParse(yamlOrUndefined(text));
    if (!parsed.success) logger.warn({ alert_def_id: id }, `${file} is not a valid fault signature: its Alertmanager mapping is not used (npm run artifacts:validate says why)`);
    else {
      definition = alertmanagerDefinition(parsed.data);
      if (parsed.data.sources?.alertmanager && !definition) logger.warn({ alert_def_id: id }, `the Alertmanager mapping of ${file} is invalid and not used (npm run artifacts:validate says why)`);
    }
    cache.set(id, { version, definition });
    return definition;
  }
  return async (): Promise<AlertmanagerDefinition[]> => {
    const ids = (await readdir(artifactsDir).catch(() => [] as string[])).filter((name) => /^AD\d{6}$/.test(name)).sort();
    const definitions = await Promise.all(ids.map((id) => read(id).catch(() => undefined)));
    return definitions.filter((d): d is AlertmanagerDefinition => d !== undefined);
  };
}
