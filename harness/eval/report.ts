import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EvalCase, EvalReport } from './scorecard';

const secs = (ms: number) => (ms / 1000).toFixed(1);
const tokens = (t: { input: number; output: number; source?: string }) => (t.source === 'none' ? '0 (not reported)' : `${t.input}+${t.output}`);

/** One scorecard line per case, as the terminal shows it while the eval runs. */
export function caseLine(c: EvalCase): string {
  if (c.skipped) return `skip  ${c.group}  ${c.name}: ${c.skipped}`;
  const approval = c.approval.requested_lines === null ? (c.approval.exact ? 'none asked (as RAW)' : 'NOT ASKED') : c.approval.exact ? 'exact RAW lines' : 'LINES DIFFER';
  const head = [
    c.passed ? 'pass' : 'FAIL',
    ` ${c.group}  ${c.name}`,
    `\n      outcome ${c.outcome} (expected ${c.expected_outcome}) · approval ${approval} · refused ${c.refused} · steps ${c.steps}`,
    ` · ${secs(c.wall_ms)} s · tokens ${tokens(c.tokens)}${c.incident_id ? ` · ${c.incident_id}` : ''}`,
  ].join('');
  const notes = [...c.change_outcome.map((l) => `change: ${l}`), ...c.failures.map((f) => `! ${f}`)];
  return [head, ...notes.map((n) => `      ${n}`)].join('\n');
}

export function totalsText(r: EvalReport): string {
  const t = r.totals;
  const ran = t.cases - t.skipped;
  return [
    `Model ${r.model} on the ${r.platform === 'frr' ? 'FRR routers' : 'simulated lab'}: ${t.passed}/${ran} cases passed${t.skipped ? `, ${t.skipped} skipped` : ''}`,
    `  outcome as expected ${t.outcome_as_expected}/${ran} · approval asked for exactly the RAW's lines ${t.approval_exact}/${ran} · refused configuration attempts ${t.refused}`,
    `  steps (device calls) ${t.steps} · wall time ${secs(t.wall_ms)} s · tokens ${t.tokens.input + t.tokens.output === 0 ? '0 (not reported by the runtime)' : `${t.tokens.input} in + ${t.tokens.output} out`}`,
  ].join('\n');
}

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]/g, '');

/** JUnit: one suite per group, one case per test case; a skipped case says why. */
export function toEvalJUnit(r: EvalReport): string {
  const suites = [...new Set(r.cases.map((c) => c.group))].map((g) => {
    const cases = r.cases.filter((c) => c.group === g);
    const body = cases.map((c) => {
      const inner = c.skipped
        ? `\n      <skipped message="${xml(c.skipped)}"/>`
        : `${c.passed ? '' : `\n      <failure message="${xml(c.failures[0] ?? 'failed')}">${xml(c.failures.join('\n'))}</failure>`}\n      <system-out>${xml(caseLine(c))}</system-out>`;
      return `    <testcase classname="${xml(`${r.model}.${g}`)}" name="${xml(c.name)}" file="${xml(c.file)}" time="${secs(c.wall_ms)}">${inner}\n    </testcase>`;
    });
    const failed = cases.filter((c) => !c.skipped && !c.passed).length;
    const skipped = cases.filter((c) => c.skipped).length;
    const time = cases.reduce((t, c) => t + c.wall_ms, 0);
    return `  <testsuite name="${xml(g)}" tests="${cases.length}" failures="${failed}" errors="0" skipped="${skipped}" time="${secs(time)}">\n${body.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="eval ${xml(r.model)}" tests="${r.totals.cases}" failures="${r.totals.failed}" errors="0" skipped="${r.totals.skipped}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** out/eval.json and out/eval.xml. */
export async function writeEvalFiles(outDir: string, r: EvalReport): Promise<{ json: string; xml: string }> {
  await mkdir(outDir, { recursive: true });
  const json = path.join(outDir, 'eval.json');
  const junit = path.join(outDir, 'eval.xml');
  await writeFile(json, `${JSON.stringify(r, null, 2)}\n`);
  await writeFile(junit, toEvalJUnit(r));
  return { json, xml: junit };
}
