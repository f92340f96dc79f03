import path from 'node:path';
import type { Logger } from 'pino';
import { listArtifactGroups, loadArtifactGroup } from '../../src/runbooks/load';
import { runTestCase } from '../raw-tests/raw-test-runner';
import { forFrr, type RawTestCase } from '../../src/runbooks/schema-test-case';
import type { ArtifactGroup } from '../../src/runbooks/validate';
import type { RemediationVariant } from '../demo/brain';
import { demoPolicy } from '../demo/demo-policy';
import { startDemoStack, type DemoStack } from '../demo/demo-stack';
import { requestedLines, runCase } from './case-run';
import { inventoryAddressBook } from '../../src/adapters/devices/inventory-lookup';
import { startEvalFrr, type EvalFrr } from './frr';
import { modelLabel, type ModelSpec } from './model-spec';
import { totalsOf, type EvalCase, type EvalReport } from './scorecard';
import { errorText } from '../../src/core/error-body';

export interface EvalOptions {
  projectDir: string;
  /** Relay data, the runtime's home and the FRR lab; a fresh folder per eval. */
  dataDir: string;
  logger: Logger;
  model: ModelSpec;
  /** Real FRR routers instead of the simulated lab. */
  frr?: boolean;
  /** Per case; a run that does not end by then is scored `timeout`. Default 5 minutes. */
  caseTimeoutMs?: number;
}

export interface RunOptions {
  alert?: string;
  variant?: RemediationVariant;
  /** Only the cases whose file (e.g. `01-admin-down-approved-resolved.yaml`) it accepts. */
  files?: (file: string) => boolean;
  onCase?: (c: EvalCase) => void;
}

export interface EvalSession {
  /** Every test case of every group in the folder (or of one), one after another; `variant` switches the scripted agent. */
  run(opts?: RunOptions): Promise<EvalReport>;
  stop(): Promise<void>;
}

/** The decision channel of the scripted human; counted as live, so approvals are asked, not skipped as unattended. */
const CHANNEL = 'eval';

/**
 * The product as `npm run demo` runs it (relay, guard, approvals, opencode with the shipped agents,
 * the lab or FRR) started once, then scored case by case. The groups are read from the folder at
 * each run, so a new group is evaluated without code changes.
 */
export async function startEval(opts: EvalOptions): Promise<EvalSession> {
  let variant: RemediationVariant = opts.model.kind === 'scripted' ? opts.model.variant : 'faithful';
  const frr: EvalFrr | undefined = opts.frr ? await startEvalFrr(opts.dataDir) : undefined;
  let stack: DemoStack;
  // Scored under the shipped change policy, on a clock pinned outside its freeze and windows.
  const policy = demoPolicy(opts.projectDir, opts.dataDir);
  opts.logger.info(policy.notice.replace(/^clock\s+/, 'eval clock '));
  try {
    stack = await startDemoStack({
      projectDir: opts.projectDir,
      dataDir: opts.dataDir,
      logDir: path.join(opts.dataDir, 'logs'),
      logger: opts.logger,
      convergeDelayMs: 0,
      // The simulated lab converges at once, so waits are cut to a second. Real FRR routers take the
      // RAW's own time: after rejected OPENs FRR waits up to a minute before it connects again, and a
      // post-check paced at a second gave up on a repair that worked (then had to roll it back).
      ...(frr ? {} : { maxSleepS: 1 }),
      approvalChannels: [CHANNEL],
      variantFor: () => variant,
      ...(opts.model.kind === 'runtime' ? { realModel: opts.model.model } : {}),
      ...(frr ? { deviceMcpUrl: frr.devices.mcpUrl, addressBook: inventoryAddressBook(frr.lab.inventoryPath) } : {}),
      relayEnv: { ...policy.env, ...(frr ? { DEVICE_MCP_TOKEN: frr.devices.token } : {}) },
      clock: policy.clock,
    });
    await stack.toolsConnected(120_000);
  } catch (error) {
    await frr?.stop();
    throw error;
  }
  const dir = path.join(opts.projectDir, 'intelligence-artifacts');
  const platform = frr ? 'frr' : 'lab';

  return {
    async run(runOpts = {}) {
      if (runOpts.variant) variant = runOpts.variant;
      const started_at = new Date().toISOString();
      const cases: EvalCase[] = [];
      for (const group of await groupsToRun(dir, runOpts.alert)) {
        for (const { file, testCase: tc } of group.tests) {
          if (runOpts.files && !runOpts.files(path.basename(file))) continue;
          const row = await runOne(group, tc, file);
          cases.push(row);
          runOpts.onCase?.(row);
        }
      }
      const label = opts.model.kind === 'scripted' ? `scripted/${variant}` : modelLabel(opts.model);
      return { model: label, variant: opts.model.kind === 'scripted' ? variant : null, platform, started_at, cases, totals: totalsOf(cases) };
    },
    async stop() {
      await stack.stop();
      await frr?.stop();
    },
  };

  async function runOne(group: ArtifactGroup, written: RawTestCase, file: string): Promise<EvalCase> {
    // On FRR the case's `frr:` names (its interfaces, faults) replace the simulated lab's.
    const tc = frr ? forFrr(written) : written;
    const skip = (reason: string) => skippedRow(group, tc, file, platform, reason);
    let rawLines: string[];
    if (frr) {
      if (!tc.platforms.includes('frr')) return skip('not marked for FRR (platforms)');
      const cannot = await frr.prepare(tc);
      if (cannot) return skip(cannot);
      rawLines = await frr.rawLines(group, tc);
    } else {
      if (tc.lab.inventory) return skip('the case names its own inventory; the eval lab runs the default one');
      // The RAW engine on the same scenario, in its own in-process lab: the lines the RAW itself would ask for.
      const reference = await runTestCase(group, tc, file, { repoRoot: opts.projectDir });
      rawLines = requestedLines(reference.approvals[0]);
      const lab = stack.lab!.lab;
      lab.reset();
      try {
        for (const fault of tc.lab.faults) lab.inject(fault);
      } catch (error) {
        return skip(`the lab cannot build this scenario: ${errorText(error)}`);
      }
    }
    return runCase({
      relay: stack.relay,
      group,
      tc,
      file,
      platform,
      rawLines,
      timeoutMs: opts.caseTimeoutMs ?? 300_000,
      channel: CHANNEL,
      ...(frr ? { alertExtra: { device_platform: 'frr' } } : {}),
    });
  }
}

/** All valid groups in the folder in id order, or the one asked for (an unknown or invalid one is an error). */
async function groupsToRun(dir: string, alert: string | undefined): Promise<ArtifactGroup[]> {
  if (alert) return [await loadArtifactGroup(dir, alert)];
  const groups: ArtifactGroup[] = [];
  for (const summary of await listArtifactGroups(dir)) if (summary.valid) groups.push(await loadArtifactGroup(dir, summary.alert_def_id));
  return groups;
}

function skippedRow(group: ArtifactGroup, tc: RawTestCase, file: string, platform: EvalCase['platform'], reason: string): EvalCase {
  return {
    group: group.alert_def_id,
    name: tc.name,
    file,
    platform,
    skipped: reason,
    incident_id: null,
    expected_outcome: tc.expect.outcome,
    outcome: 'skipped',
    approval: { answer: tc.approval, raw_lines: [], requested_lines: null, exact: true },
    refused: 0,
    refused_reasons: [],
    steps: 0,
    config_applied: 0,
    wall_ms: 0,
    tokens: { input: 0, output: 0, source: 'none' },
    change_outcome: [],
    failures: [],
    passed: false,
  };
}
