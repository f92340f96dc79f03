import { REGEX_FLAGS } from './expectations';
import { checkFormat } from './formats';
import type { FaultSignature } from './schema-fs';

export { checkFormat } from './formats';

/** The variables a log line yields under the FS patterns (first matching pattern wins). */
export function extractFromLogLine(fs: FaultSignature, line: string): { pattern: string; vars: Record<string, string> } | undefined {
  for (const p of fs.detection.patterns) {
    const m = new RegExp(p.regex, REGEX_FLAGS).exec(line);
    if (!m) continue;
    const vars: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.groups ?? {})) if (v !== undefined) vars[k] = v;
    return { pattern: p.id, vars };
  }
  return undefined;
}

/**
 * Joins what the alert says with what its log line says, as the FS defines. A value that
 * the two sources give differently is contradictory context: the caller escalates.
 */
export function resolveFaultVariables(
  fs: FaultSignature,
  vars: Readonly<Record<string, string | undefined>>,
  rawMessage?: string | null,
): { vars: Record<string, string>; problems: string[] } {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) out[k] = v;
  const problems: string[] = [];
  const fromLog = rawMessage ? extractFromLogLine(fs, rawMessage)?.vars : undefined;
  for (const v of fs.variables) {
    const alertValue = v.sources.includes('alert') ? vars[v.alert_field ?? v.name] : undefined;
    const logValue = v.sources.includes('pattern') ? fromLog?.[v.name] : undefined;
    if (alertValue && logValue && alertValue !== logValue) {
      problems.push(`contradictory ${v.name}: the alert says "${alertValue}", the log line says "${logValue}"`);
    }
    const value = alertValue || logValue;
    if (value) out[v.name] = value;
    if (value && !checkFormat(v.format, value)) problems.push(`${v.name} "${value}" is not a valid ${v.format}`);
  }
  for (const field of fs.required_alert_fields) {
    const names = field.split('|');
    if (!names.some((n) => (out[n] ?? '') !== '')) problems.push(`required alert field ${field} is missing`);
  }
  return { vars: out, problems };
}
