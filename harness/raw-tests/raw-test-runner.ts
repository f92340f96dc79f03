import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { createLab } from '../ios-lab/lab';
import { DEFAULT_INVENTORY_PATH, labAddressBook, loadInventory } from '../ios-lab/inventory';
import { createVirtualClock } from './clock';
import { createLabDeviceTools } from '../ios-lab/lab-device-tools';
import { runRaw, type ApprovalRequest, type RunRawResult } from './engine';
import type { RawTestCase } from '../../src/runbooks/schema-test-case';
import type { ArtifactGroup } from '../../src/runbooks/validate';
import { errorText } from '../../src/core/error-body';

export interface CaseResult {
  group: string;
  name: string;
  file: string;
  passed: boolean;
  failures: string[];
  expected: RawTestCase['expect'];
  result: RunRawResult;
  approvals: ApprovalRequest[];
  /** Wall time spent, for the report only. */
  wallMs: number;
}

/** How long after the fault the run starts: the alert pipeline is never instant. */
const ALERT_LATENCY_MS = 90_000;

/**
 * Runs one test case against a fresh in-process lab on virtual time: deterministic, and
 * a RAW's 10 s waits cost nothing.
 */
export async function runTestCase(
  group: ArtifactGroup,
  tc: RawTestCase,
  file: string,
  opts: { repoRoot?: string; logger?: Logger } = {},
): Promise<CaseResult> {
  const started = performance.now();
  const clock = createVirtualClock();
  const inventoryPath = tc.lab.inventory ? resolve(opts.repoRoot ?? process.cwd(), tc.lab.inventory) : DEFAULT_INVENTORY_PATH;
  const inventory = await loadInventory(inventoryPath);
  const lab = createLab({ inventory, clock, ...(opts.logger ? { logger: opts.logger } : {}) });
  const failures: string[] = [];
  const approvals: ApprovalRequest[] = [];
  const base = { group: group.alert_def_id, name: tc.name, file, expected: tc.expect, approvals };
  try {
    try {
      for (const fault of tc.lab.faults) lab.inject(fault);
    } catch (e) {
      // A scenario the lab cannot build is a broken test case, reported like any failure.
      const message = `lab scenario cannot be set up: ${errorText(e)}`;
      const result: RunRawResult = { outcome: 'failed', summary: message, path: [], vars: {}, config_changes: 0 };
      return { ...base, passed: false, failures: [message], result, wallMs: performance.now() - started };
    }
    clock.advance(ALERT_LATENCY_MS);
    const result = await runRaw({
      raw: group.raw,
      fs: group.fs,
      vars: { device_hostname: tc.alert.device_hostname, ...tc.alert.alert_vars },
      rawMessage: tc.alert.raw_message,
      tools: createLabDeviceTools(lab),
      addressBook: labAddressBook(inventory),
      clock,
      ...(opts.logger ? { logger: opts.logger } : {}),
      approve: scriptedApprover(tc, approvals, failures),
    });
    failures.push(...compareRun(tc, result, lab.configChanges(), tc.expect.summary_contains));
    return { ...base, passed: failures.length === 0, failures, result, wallMs: performance.now() - started };
  } finally {
    lab.close();
  }
}

/** The operator a test case scripts: its answer, and a failure if the run asks when it should not. */
export function scriptedApprover(tc: RawTestCase, approvals: ApprovalRequest[], failures: string[]) {
  return (req: ApprovalRequest): Promise<'APPROVED' | 'DENIED'> => {
    approvals.push(req);
    if (tc.approval === 'none') {
      failures.push(`unexpected approval request at step ${req.step}`);
      return Promise.resolve('DENIED');
    }
    return Promise.resolve(tc.approval);
  };
}

/** How a run differs from what its test case expects (outcome, path, changes, summary), one line each. */
export function compareRun(tc: RawTestCase, result: RunRawResult, changes: number, summaryContains: readonly string[]): string[] {
  const failures: string[] = [];
  const actual = result.path.map((r) => r.step);
  if (result.outcome !== tc.expect.outcome) failures.push(`outcome ${result.outcome}, expected ${tc.expect.outcome}`);
  if (actual.join(' > ') !== tc.expect.path.join(' > ')) {
    failures.push(`path\n  actual:   ${actual.join(' > ') || '(none)'}\n  expected: ${tc.expect.path.join(' > ') || '(none)'}`);
  }
  if (tc.expect.config_changes !== undefined && changes !== tc.expect.config_changes) {
    failures.push(`${changes} configuration changes reached the device, expected ${tc.expect.config_changes}`);
  }
  for (const s of summaryContains) if (!result.summary.includes(s)) failures.push(`summary does not contain "${s}": ${result.summary}`);
  return failures;
}

export async function runGroupTests(group: ArtifactGroup, opts: { repoRoot?: string; logger?: Logger } = {}): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const { file, testCase } of group.tests) results.push(await runTestCase(group, testCase, file, opts));
  return results;
}

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]/g, '');

export function toJUnit(results: CaseResult[]): string {
  const groups = [...new Set(results.map((r) => r.group))];
  const secs = (ms: number) => (ms / 1000).toFixed(3);
  const suites = groups.map((g) => {
    const cases = results.filter((r) => r.group === g);
    const failed = cases.filter((c) => !c.passed).length;
    const time = cases.reduce((t, c) => t + c.wallMs, 0);
    const body = cases
      .map((c) => {
        const out = [`outcome: ${c.result.outcome}`, `path: ${c.result.path.map((p) => p.step).join(' > ')}`, `summary: ${c.result.summary}`].join('\n');
        const failure = c.passed ? '' : `\n      <failure message="${xml(c.failures[0]!.split('\n')[0]!)}">${xml(c.failures.join('\n'))}</failure>`;
        return `    <testcase classname="${xml(g)}" name="${xml(c.name)}" file="${xml(c.file)}" time="${secs(c.wallMs)}">${failure}\n      <system-out>${xml(out)}</system-out>\n    </testcase>`;
      })
      .join('\n');
    return `  <testsuite name="${xml(g)}" tests="${cases.length}" failures="${failed}" errors="0" skipped="0" time="${secs(time)}">\n${body}\n  </testsuite>`;
  });
  const failed = results.filter((r) => !r.passed).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="raw-test" tests="${results.length}" failures="${failed}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
}

export function toSummaryMarkdown(results: CaseResult[]): string {
  const failed = results.filter((r) => !r.passed);
  const lines = [
    '# RAW test results',
    '',
    `${results.length - failed.length} of ${results.length} cases passed${failed.length ? `, **${failed.length} failed**` : ''}.`,
    '',
  ];
  for (const g of new Set(results.map((r) => r.group))) {
    lines.push(`## ${g}`, '', '| | Case | Outcome | Approval | Changes | Path |', '|---|---|---|---|---|---|');
    for (const r of results.filter((x) => x.group === g)) {
      const approval = r.approvals.length ? r.result.path.find((p) => p.approval)?.approval ?? 'asked' : '—';
      lines.push(
        `| ${r.passed ? 'pass' : '**FAIL**'} | ${r.name} | ${r.result.outcome} | ${approval} | ${r.result.config_changes} | ${r.result.path.map((p) => `\`${p.step}\``).join(' → ') || '(stopped before the first step)'} |`,
      );
    }
    lines.push('');
  }
  for (const r of failed) lines.push(`### FAIL: ${r.group} / ${r.name}`, '', `File: \`${r.file}\``, '', '```', ...r.failures, '```', '');
  return lines.join('\n');
}
