import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifactGroup, type ArtifactGroup } from '../../../src/runbooks/load';
import { runGroupTests, runTestCase, toJUnit, toSummaryMarkdown } from '../../../harness/raw-tests/raw-test-runner';

const run = promisify(execFile);
const TSX = join('node_modules', '.bin', 'tsx');

let ad2: ArtifactGroup;
let tmp: string;
beforeAll(async () => {
  ad2 = await loadArtifactGroup('intelligence-artifacts', 'AD000002');
  tmp = await mkdtemp(join(tmpdir(), 'raw-test-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('RAW test runner', () => {
  it('passes every published AD000002 case, including the five the issue names', async () => {
    const results = await runGroupTests(ad2);
    expect(results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
    const byOutcome = (o: string) => results.filter((r) => r.result.outcome === o).map((r) => r.name);
    expect(byOutcome('resolved')).toContain('admin-down, approved, resolved');
    expect(byOutcome('escalated')).toEqual(expect.arrayContaining(['admin-down, denied, escalated', 'neighbor down for another reason, escalated without change', 'unknown device, escalated']));
    expect(byOutcome('failed')).toContain('repair applied but the session stays down, failed');
  });

  it('fails a case whose expectation the run does not meet, and says how', async () => {
    const { file, testCase } = ad2.tests.find((t) => t.testCase.name === 'admin-down, approved, resolved')!;
    const wrong = { ...testCase, approval: 'DENIED' as const };
    const r = await runTestCase(ad2, wrong, file);
    expect(r.passed).toBe(false);
    expect(r.failures[0]).toBe('outcome escalated, expected resolved');
    expect(r.failures.some((f) => f.includes('actual:   check_device_reachable > validate_neighbor_state > collect_bgp_config > collect_change_history > repair_no_shutdown > escalate_denied'))).toBe(true);
    const junit = toJUnit([r]);
    expect(junit).toContain('<testsuites name="raw-test" tests="1" failures="1" errors="0">');
    expect(junit).toContain('<failure message="outcome escalated, expected resolved">');
    expect(toSummaryMarkdown([r])).toContain('0 of 1 cases passed, **1 failed**');
  });

  it('reports a scenario the lab cannot build as a failed case instead of crashing', async () => {
    const { file, testCase } = ad2.tests[0]!;
    const broken = { ...testCase, lab: { faults: [{ fault: 'bgp_neighbor_admin_down' as const, device: 'R7', neighbor: '10.0.0.2' }] } };
    const r = await runTestCase(ad2, broken, file);
    expect(r).toMatchObject({ passed: false, failures: ['lab scenario cannot be set up: unknown device "R7" (known: R1, R2, R3)'] });
  });

  it('npm run raw:test writes results.xml and summary.md', async () => {
    const out = join(tmp, 'out');
    const { stdout } = await run(TSX, ['scripts/raw-test.ts', 'AD000002', '--out', out]);
    expect(stdout).toMatch(/(\d+)\/\1 passed/);
    const xml = await readFile(join(out, 'results.xml'), 'utf8');
    expect(xml).toMatch(/<testsuite name="AD000002" tests="\d+" failures="0"/);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain('| pass | admin-down, approved, resolved | resolved | APPROVED | 1 |');
  });

  it('npm run artifacts:validate fails on a broken copy and names file and line', async () => {
    const root = join(tmp, 'artifacts');
    await cp(join('intelligence-artifacts', 'AD000002'), join(root, 'AD000002'), { recursive: true });
    const rawPath = join(root, 'AD000002', 'RAW.yaml');
    const text = (await readFile(rawPath, 'utf8')).replace('duration_s: 10', 'duration_s: ten');
    await writeFile(rawPath, text);
    const line = text.split('\n').findIndex((l) => l.includes('duration_s: ten')) + 1;
    const failed = await run(TSX, ['scripts/validate-artifacts.ts', '--dir', root]).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`AD000002/RAW.yaml:${line}:17: steps.5.duration_s: Invalid input: expected number, received string`);
  });
});
