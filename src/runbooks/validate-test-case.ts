import type { RepairActionWorkflow } from './schema-raw';
import type { RawTestCase } from './schema-test-case';
import type { IssueSink } from './validate-issues';
import type { YamlSource } from './yaml-source';

/** A test case's expected path must exist in the RAW and end where its expected outcome says. */
export function checkTestCase(tc: RawTestCase, src: YamlSource, raw: RepairActionWorkflow, sink: IssueSink): void {
  const byId = new Map(raw.steps.map((s) => [s.id, s]));
  tc.expect.path.forEach((id, k) => {
    if (!byId.has(id)) sink.at(src, ['expect', 'path', k], `step ${id} is not in RAW ${raw.alert_def_id}`, 'use a step id from RAW.yaml (a renamed step?)');
  });
  const last = byId.get(tc.expect.path.at(-1) ?? '');
  if (last) {
    const outcome = last.kind === 'resolve' ? 'resolved' : last.kind === 'fail' ? 'failed' : last.kind === 'escalate' ? 'escalated' : undefined;
    if (!outcome) sink.at(src, ['expect', 'path', tc.expect.path.length - 1], `the path must end with a terminal step; ${last.id} is ${last.kind}`, 'end the path with the resolve, fail or escalate step the run stops at');
    else if (outcome !== tc.expect.outcome) sink.at(src, ['expect', 'outcome'], `outcome ${tc.expect.outcome} contradicts the path, which ends in ${last.kind} step ${last.id}`, 'make outcome match the last step: resolve → resolved, fail → failed, escalate → escalated');
  }
}
