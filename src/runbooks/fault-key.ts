import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { parse } from 'yaml';
import { alertFormats, type AlertFormats } from './alert-formats';
import { namedGroups, REGEX_FLAGS } from './expectations';
import { faultSignatureSchema, type FaultSignature, type VariableFormat } from './schema-fs';

/**
 * An alert definition's fault key as the FS declares it (`key_fields`, `extract`): which alert
 * fields make two alerts the same fault, and how to take them out of the raw log line when the
 * sender did not. Compiled once per FS version: the duplicate path only looks values up.
 */
export interface FaultKeyRule {
  alert_def_id: string;
  /** The key fields after the device, in the FS's order. */
  fields: readonly { name: string; alertField: string; format: VariableFormat }[];
  extract: readonly RegExp[];
  /**
   * The FS's other variables a detection pattern can capture (`sources: [.., pattern]`), with the
   * patterns: taken from the log line when the sender did not extract them, so the incident holds
   * every value the RAW reads from the alert (the relay's post-check reads them too, e.g. the
   * prefix count a new limit was built from).
   */
  patternFields: readonly { name: string; alertField: string }[];
  patterns: readonly RegExp[];
}

/** What the validator holds `key_fields`/`extract` to, positioned in FS.yaml. */
export function faultKeyProblems(fs: FaultSignature): { path: (string | number)[]; message: string; hint: string }[] {
  const problems: { path: (string | number)[]; message: string; hint: string }[] = [];
  if (fs.extract && !fs.key_fields) problems.push({ path: ['extract'], message: 'extract without key_fields has no effect', hint: 'add key_fields: [device_hostname, …] or remove extract' });
  if (!fs.key_fields) return problems;
  const variables = new Map(fs.variables.map((v) => [v.name, v]));
  const extracted = new Set<string>();
  (fs.extract ?? fs.detection.patterns).forEach((p, i) => {
    try {
      new RegExp(p.regex, REGEX_FLAGS);
      namedGroups(p.regex).forEach((g) => extracted.add(g));
    } catch (e) {
      if (fs.extract) problems.push({ path: ['extract', i, 'regex'], message: `regex does not compile: ${(e instanceof Error ? e.message : String(e))}`, hint: 'fix the JavaScript regular expression' });
    }
  });
  if (!fs.key_fields.includes('device_hostname')) {
    problems.push({ path: ['key_fields'], message: 'key_fields must include device_hostname: the same fault on two devices is two faults', hint: 'add device_hostname to key_fields' });
  }
  fs.key_fields.forEach((name, i) => {
    const v = variables.get(name);
    if (!v) problems.push({ path: ['key_fields', i], message: `key field ${name} is not a variable of the FS`, hint: `declare ${name} under variables:, or correct the name` });
    else if (name !== 'device_hostname' && !v.sources.includes('alert') && !extracted.has(name)) {
      problems.push({ path: ['key_fields', i], message: `key field ${name} comes neither from the alert nor from an extract pattern`, hint: `add alert to its sources, or a (?<${name}>…) group to an extract pattern` });
    }
  });
  if (new Set(fs.key_fields).size !== fs.key_fields.length) problems.push({ path: ['key_fields'], message: 'key_fields names a field twice', hint: 'list each field once' });
  return problems;
}

/** The rule the intake applies; undefined when the FS declares no key_fields (the BGP default applies). */
export function faultKeyRule(fs: FaultSignature): FaultKeyRule | undefined {
  if (!fs.key_fields || faultKeyProblems(fs).length > 0) return undefined;
  const fields = fs.key_fields
    .filter((n) => n !== 'device_hostname')
    .map((name) => {
      const v = fs.variables.find((x) => x.name === name)!;
      return { name, alertField: v.alert_field ?? name, format: v.format };
    });
  const keyed = new Set(fs.key_fields);
  const patternFields = fs.variables.filter((v) => v.sources.includes('pattern') && !keyed.has(v.name)).map((v) => ({ name: v.name, alertField: v.alert_field ?? v.name }));
  return {
    alert_def_id: fs.alert_def_id,
    fields,
    extract: (fs.extract ?? fs.detection.patterns).map((p) => new RegExp(p.regex, REGEX_FLAGS)),
    patternFields,
    patterns: fs.detection.patterns.map((p) => new RegExp(p.regex, REGEX_FLAGS)),
  };
}

/** The pattern fields the result lacks, from the first detection pattern that matches the log line and captures them. */
export function patternValues(rule: FaultKeyRule, result: Readonly<Record<string, unknown>>, raw: string | undefined): Record<string, string> {
  const missing = rule.patternFields.filter((f) => typeof result[f.alertField] !== 'string' || (result[f.alertField] as string).trim() === '');
  if (!raw || missing.length === 0) return {};
  const values: Record<string, string> = {};
  for (const re of rule.patterns) {
    const groups = re.exec(raw)?.groups;
    if (!groups) continue;
    for (const f of missing) if (values[f.alertField] === undefined && groups[f.name]) values[f.alertField] = groups[f.name]!;
    break;
  }
  return values;
}

/** One key field's value as the key holds it: the global table is one VRF whether "default" or nothing. */
const keyValue = (format: VariableFormat, value: string | undefined) => (format === 'vrf' && value === 'default' ? '' : (value ?? ''));

/** The key from a rule and the fields' values (by FS variable name); the same whichever sender reports the fault. */
export function ruleKey(rule: FaultKeyRule, hostname: string, values: Readonly<Record<string, string | undefined>>): string {
  return JSON.stringify([rule.alert_def_id.toUpperCase(), hostname.toLowerCase(), ...rule.fields.map((f) => keyValue(f.format, values[f.name]))]);
}

/**
 * The key fields of a Splunk result: the result's own field (under the FS's alert name), else the
 * first extract pattern's capture from `_raw`. `from` says which, for the incident's field_sources.
 */
export function ruleFields(rule: FaultKeyRule, result: Readonly<Record<string, unknown>>, raw: string | undefined) {
  const values: Record<string, string> = {};
  const from: Record<string, 'result' | '_raw' | 'absent'> = {};
  let groups: Record<string, string | undefined> | undefined;
  for (const f of rule.fields) {
    const own = result[f.alertField];
    if (typeof own === 'string' && own.trim() !== '') {
      values[f.name] = own;
      from[f.name] = 'result';
      continue;
    }
    // Each pattern runs at most once per alert, and only when a field is missing.
    groups ??= raw ? Object.assign({}, ...rule.extract.map((re) => re.exec(raw)?.groups ?? {}).reverse()) : {};
    const found = groups![f.name];
    if (found) values[f.name] = found;
    from[f.name] = found ? '_raw' : 'absent';
  }
  return { values, from };
}

/** The FS's fault key rule and its alert formats, or 'invalid'. Parses the YAML quietly: the validator reports problems. */
function readFs(text: string): { rule: FaultKeyRule | undefined; formats: AlertFormats } | 'invalid' {
  let data: unknown;
  try {
    data = parse(text);
  } catch {
    return 'invalid';
  }
  const parsed = faultSignatureSchema.safeParse(data);
  if (!parsed.success) return 'invalid';
  const formats = alertFormats(parsed.data);
  if (!parsed.data.key_fields) return { rule: undefined, formats };
  const rule = faultKeyRule(parsed.data);
  return rule ? { rule, formats } : 'invalid';
}

const NO_FORMATS: AlertFormats = new Map();

/**
 * The fault key rules of the groups under `artifactsDir`, per alert definition, and (`.formats`) the
 * formats its alert values must have. As the Alertmanager mappings are: an FS is parsed again only
 * when its file changed, so an edit applies without a restart; the file is looked at (a `stat`) at
 * most every `recheckMs`, so a storm of repeats costs a map lookup each. An FS without key_fields,
 * an invalid one or none gives undefined: the BGP key.
 */
export function createFaultKeyRules(artifactsDir: string, logger: Pick<Logger, 'warn'>, opts: { recheckMs?: number; now?: () => number } = {}) {
  const recheckMs = opts.recheckMs ?? 1000;
  const now = opts.now ?? Date.now;
  type Entry = { checkedAt: number; version: string | undefined; rule: FaultKeyRule | undefined; formats: AlertFormats };
  const cache = new Map<string, Entry>();
  async function reread(id: string): Promise<Entry> {
    const file = join(artifactsDir, id, 'FS.yaml');
    const version = await stat(file).then((s) => `${s.mtimeMs}:${s.size}`, () => undefined);
    const cached = cache.get(id);
    let entry: Entry = { checkedAt: now(), version, rule: undefined, formats: NO_FORMATS };
    if (cached && cached.version === version) entry = { ...cached, checkedAt: now() };
    else if (version !== undefined) {
      const got = readFs(await readFile(file, 'utf8').catch(() => ''));
      if (got === 'invalid') logger.warn({ alert_def_id: id }, `${file} is not a valid fault signature: its alerts are keyed by device, neighbor_ip and vrf_name (npm run artifacts:validate says why)`);
      else entry = { ...entry, ...got };
    }
    cache.set(id, entry);
    return entry;
  }
  const entryOf = async (alertDefIdAsSent: string): Promise<Entry | undefined> => {
    // The key upper-cases the id too. Only ids that can name a folder: an alert must never walk the file system.
    const alertDefId = alertDefIdAsSent.toUpperCase();
    if (!/^AD\d{6}$/.test(alertDefId)) return undefined;
    const cached = cache.get(alertDefId);
    if (cached && now() - cached.checkedAt < recheckMs) return cached;
    return reread(alertDefId).catch(() => undefined);
  };
  const rules = async (alertDefId: string): Promise<FaultKeyRule | undefined> => (await entryOf(alertDefId))?.rule;
  return Object.assign(rules, {
    /** The formats the alert definition's values must have; none for an unknown or invalid one. */
    formats: async (alertDefId: string): Promise<AlertFormats> => (await entryOf(alertDefId))?.formats ?? NO_FORMATS,
  });
}
export type FaultKeyRules = ReturnType<typeof createFaultKeyRules>;
