import type { Expectation, RawStep } from './schema-raw';
import type { PathSegment } from './yaml-source';

/** Kinds that end a run: a workflow must not start with one. */
export const TERMINAL = new Set(['resolve', 'fail', 'escalate']);

export type StepStringRole = 'command' | 'regex' | 'text';

/** Every templated string of a step with its path, for template and regex checks. */
export function stepStrings(step: RawStep, base: PathSegment[]): { path: PathSegment[]; text: string; role: StepStringRole }[] {
  const out: { path: PathSegment[]; text: string; role: StepStringRole }[] = [];
  const expectations = (list: Expectation[], path: PathSegment[]) =>
    list.forEach((e, k) => {
      if ('contains' in e) out.push({ path: [...path, k, 'contains'], text: e.contains, role: 'text' });
      if ('not_contains' in e) out.push({ path: [...path, k, 'not_contains'], text: e.not_contains, role: 'text' });
      if ('matches' in e) out.push({ path: [...path, k, 'matches'], text: e.matches, role: 'regex' });
      if ('not_matches' in e) out.push({ path: [...path, k, 'not_matches'], text: e.not_matches, role: 'regex' });
    });
  switch (step.kind) {
    case 'validate':
    case 'collect':
    case 'revalidate':
      out.push({ path: [...base, 'action', 'command'], text: step.action.command, role: 'command' });
      step.capture.forEach((c, k) => out.push({ path: [...base, 'capture', k], text: c, role: 'regex' }));
      expectations(step.expect, [...base, 'expect']);
      step.failure_cases.forEach((c, k) => expectations(c.when, [...base, 'failure_cases', k, 'when']));
      break;
    case 'repair':
      step.action.commands.forEach((c, k) => out.push({ path: [...base, 'action', 'commands', k], text: c, role: 'text' }));
      out.push({ path: [...base, 'approval_summary'], text: step.approval_summary, role: 'text' });
      expectations(step.expect, [...base, 'expect']);
      break;
    case 'resolve':
    case 'fail':
    case 'escalate':
      out.push({ path: [...base, 'summary'], text: step.summary, role: 'text' });
      break;
    case 'wait':
      break;
  }
  return out;
}

/** Every step a step can lead to, with the key (relative to the step) that names it. */
export function transitions(step: RawStep): { key: PathSegment[]; target: string }[] {
  switch (step.kind) {
    case 'validate':
    case 'collect':
    case 'revalidate':
      return [
        { key: ['on_success'], target: step.on_success },
        { key: ['on_failure'], target: step.on_failure },
        { key: ['on_error'], target: step.on_error },
        ...step.failure_cases.map((c, k) => ({ key: ['failure_cases', k, 'next'] as PathSegment[], target: c.next })),
      ];
    case 'repair':
      return [
        { key: ['on_success'], target: step.on_success },
        { key: ['on_denied'], target: step.on_denied },
        { key: ['on_failure'], target: step.on_failure },
        { key: ['on_error'], target: step.on_error },
      ];
    case 'wait':
      return [{ key: ['next'], target: step.next }];
    case 'resolve':
    case 'fail':
    case 'escalate':
      return [];
  }
}
