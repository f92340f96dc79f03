import { checkFormat, commandSafe, FORMAT_WORDS, type VariableFormat } from './formats';
import type { FaultSignature } from './schema-fs';

/** The declared format of each alert value a runbook may render into a command, by its name in `alert_vars`. */
export type AlertFormats = ReadonlyMap<string, { variable: string; format: VariableFormat }>;

/**
 * An FS's variables as the intake checks them: every variable with a format a command may carry,
 * under the name the alert gives it. The validator holds each RAW input to its FS variable's format,
 * so these are the formats of the RAW of the same alert definition.
 */
export function alertFormats(fs: FaultSignature): AlertFormats {
  const formats = new Map<string, { variable: string; format: VariableFormat }>();
  for (const v of fs.variables) if (commandSafe(v.format)) formats.set(v.alert_field ?? v.name, { variable: v.name, format: v.format });
  return formats;
}

/** One value that fails its declared format: where it came from (`result.vrf_name`, `labels.vrf` …) and why. */
export interface FormatProblem {
  path: string;
  message: string;
}

/**
 * The values among `vars` that fail their declared format. `where(key)` names the field as the
 * sender wrote it. The global table may be sent as "" (absent) or "default".
 */
export function formatProblems(vars: Readonly<Record<string, string | undefined>>, formats: AlertFormats, where: (key: string) => string): FormatProblem[] {
  const problems: FormatProblem[] = [];
  for (const [key, { variable, format }] of formats) {
    const value = vars[key];
    if (value === undefined || value === '' || checkFormat(format, value)) continue;
    const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
    problems.push({ path: where(key), message: `${JSON.stringify(shown)} is not ${FORMAT_WORDS[format]} (the runbook's format for ${variable})` });
  }
  return problems;
}
