import { transitions } from './raw-step-parts';
import type { RepairActionWorkflow } from './schema-raw';
import type { IssueSink } from './validate-issues';
import type { YamlSource } from './yaml-source';

/**
 * Every step must be reachable from the first, and every run must be able to end (resolve and
 * escalate steps, and a revalidate after any repair). `ids` maps each step id to its index.
 */
export function checkStepGraph(raw: RepairActionWorkflow, ids: ReadonlyMap<string, number>, src: YamlSource, sink: IssueSink): void {
  const reachable = new Set<string>();
  const queue = raw.steps[0] ? [raw.steps[0].id] : [];
  while (queue.length) {
    const id2 = queue.shift()!;
    if (reachable.has(id2)) continue;
    reachable.add(id2);
    const s = raw.steps[ids.get(id2) ?? -1];
    if (s) queue.push(...transitions(s).map((t) => t.target).filter((t) => ids.has(t)));
  }
  const unreached = raw.steps.flatMap((s, i) => (reachable.has(s.id) ? [] : [{ s, i }]));
  const dangling = raw.steps.some((s) => transitions(s).some((t) => !ids.has(t.target)));
  if (dangling && unreached.length > 1) {
    // One mistyped step id cuts off everything behind it: one line for all of them, not one per step.
    const names = unreached.map(({ s }) => s.id).join(', ');
    sink.at(src, ['steps', unreached[0]!.i, 'id'], `${unreached.length} steps are never reached from ${raw.steps[0]?.id}: ${names}`, 'fix the transition to an unknown step first (reported above): it probably meant one of these');
  } else {
    for (const { s, i } of unreached) sink.at(src, ['steps', i, 'id'], `step ${s.id} is never reached from ${raw.steps[0]?.id}`, 'point a transition at it, or remove it');
  }
  for (const kind of ['resolve', 'escalate'] as const) {
    if (!raw.steps.some((s) => s.kind === kind)) sink.at(src, ['steps'], `the workflow has no ${kind} step`, `add a ${kind} step with a summary and lead a transition to it`);
  }
  if (raw.steps.some((s) => s.kind === 'repair') && !raw.steps.some((s) => s.kind === 'revalidate')) {
    sink.at(src, ['steps'], 'a workflow that repairs must revalidate', 'add a revalidate step after the repair (on_success → wait → revalidate) that proves the fault cleared');
  }
}
