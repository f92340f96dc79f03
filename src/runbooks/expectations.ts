import type { Expectation } from './schema-raw';
import { renderTemplate, type TemplateVars } from './template';

/** How RAW checks read and what they see: multiline regexes over the command's whole output. */
export const REGEX_FLAGS = 'm';

export interface ExpectationResult {
  check: string;
  ok: boolean;
}

export function describeExpectation(e: Expectation, vars: TemplateVars): string {
  if ('contains' in e) return `output contains "${renderTemplate(e.contains, vars)}"`;
  if ('not_contains' in e) return `output does not contain "${renderTemplate(e.not_contains, vars)}"`;
  if ('matches' in e) return `output matches /${renderTemplate(e.matches, vars)}/`;
  if ('not_matches' in e) return `output does not match /${renderTemplate(e.not_matches, vars)}/`;
  const parts = [e.equals !== undefined ? `= "${e.equals}"` : '', e.gt !== undefined ? `> ${e.gt}` : '', e.lt !== undefined ? `< ${e.lt}` : ''];
  return `${e.var} ${parts.filter(Boolean).join(' and ')}`.trim();
}

function holds(e: Expectation, output: string, vars: TemplateVars): boolean {
  if ('contains' in e) return output.includes(renderTemplate(e.contains, vars));
  if ('not_contains' in e) return !output.includes(renderTemplate(e.not_contains, vars));
  if ('matches' in e) return new RegExp(renderTemplate(e.matches, vars), REGEX_FLAGS).test(output);
  if ('not_matches' in e) return !new RegExp(renderTemplate(e.not_matches, vars), REGEX_FLAGS).test(output);
  const value = vars[e.var];
  if (value === undefined) return false;
  if (e.equals !== undefined && value !== e.equals) return false;
  const n = Number(value);
  if (e.gt !== undefined && !(Number.isFinite(n) && n > e.gt)) return false;
  if (e.lt !== undefined && !(Number.isFinite(n) && n < e.lt)) return false;
  return true;
}

export function evaluateExpectations(list: readonly Expectation[], output: string, vars: TemplateVars) {
  const results: ExpectationResult[] = list.map((e) => ({ check: describeExpectation(e, vars), ok: holds(e, output, vars) }));
  return { ok: results.every((r) => r.ok), results };
}

/** Named groups of each capture regex that matches; the first match of each regex counts. */
export function runCaptures(patterns: readonly string[], output: string, vars: TemplateVars): Record<string, string> {
  const captured: Record<string, string> = {};
  for (const p of patterns) {
    const m = new RegExp(renderTemplate(p, vars), REGEX_FLAGS).exec(output);
    for (const [k, v] of Object.entries(m?.groups ?? {})) if (v !== undefined) captured[k] = v;
  }
  return captured;
}

/** Names of the named groups in a regex source. */
export function namedGroups(source: string): string[] {
  return [...source.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]!);
}
