import { checkReadOnlyCommand } from './read-only-command';
import { namedGroups, REGEX_FLAGS } from './expectations';
import { FILE_NAMES } from './group-files';
import { stepStrings, TERMINAL, transitions } from './raw-step-parts';
import { renderBothWays, safeRender, templateVariablesSafe } from './render-variants';
import type { FaultSignature } from './schema-fs';
import type { RawPlatform, RawStep, RepairActionWorkflow } from './schema-raw';
import { templateVariables, TemplateError } from './template';
import { checkCommandVariables, checkPostCheckPatterns } from './validate-anchors';
import type { IssueSink } from './validate-issues';
import { checkStepPlatforms } from './validate-platform-grammar';
import { checkPlanDevices } from './validate-plan';
import { checkStepGraph } from './validate-step-graph';
import { stepForPlatform, variantPlatforms } from './variants';
import type { PathSegment, YamlSource } from './yaml-source';

/**
 * Cross-checks a RAW that already passed its schema: inputs against the FS, templates, show
 * commands, the step graph and how a run can end.
 */
export function checkRaw(raw: RepairActionWorkflow, src: YamlSource, fs: FaultSignature | undefined, id: string, sink: IssueSink): void {
  if (raw.alert_def_id !== id) sink.at(src, ['alert_def_id'], `alert_def_id ${raw.alert_def_id} does not match the folder ${id}`, `set alert_def_id: ${id}`);
  if (fs && raw.fs_version !== fs.version) {
    sink.at(src, ['fs_version'], `RAW was written for FS ${raw.fs_version} but ${FILE_NAMES.fs} is version ${fs.version}`,
      `check the workflow against the FS, then set fs_version: ${fs.version}`,
    );
  }
  const inputs = new Set<string>();
  raw.inputs.forEach((input, i) => {
    if (inputs.has(input.name)) sink.at(src, ['inputs', i, 'name'], `input ${input.name} is declared twice`, 'remove one of the two declarations');
    inputs.add(input.name);
    const fv = fs?.variables.find((v) => v.name === input.name);
    if (fs && !fv) {
      sink.at(src, ['inputs', i, 'name'], `input ${input.name} is not a variable of the FS (FS variables: ${fs.variables.map((v) => v.name).join(', ')})`, `rename the input to an FS variable, or declare ${input.name} under variables: in FS.yaml`);
    }
    if (fv && input.format !== fv.format) sink.at(src, ['inputs', i, 'format'], `format ${input.format} differs from the FS's ${fv.format} for ${input.name}`, `set format: ${fv.format} (a RAW input's format is the FS variable's)`);
  });

  const captures = new Set<string>();
  raw.steps.forEach((s) => {
    if (s.kind === 'validate' || s.kind === 'collect' || s.kind === 'revalidate') s.capture.forEach((c) => namedGroups(c).forEach((g) => captures.add(g)));
  });
  const known = new Set([...inputs, ...captures]);

  const checkTemplate = (path: PathSegment[], text: string): string[] | undefined => {
    try {
      const names = templateVariables(text);
      for (const n of names) if (!known.has(n)) sink.at(src, path, `{{${n}}} is neither a RAW input nor captured by any step`, `declare ${n} under inputs:, capture it with a (?<${n}>…) group in an earlier step, or correct the name`);
      return names;
    } catch (e) {
      sink.at(src, path, `template: ${(e as TemplateError).message}`, 'close every {{#name}}/{{^name}} with {{/name}} and write variables as {{name}}');
      return undefined;
    }
  };

  checkTemplate(['device'], raw.device);
  checkPlanDevices(raw, src, known, sink);

  const ids = new Map<string, number>();
  raw.steps.forEach((s, i) => {
    if (ids.has(s.id)) sink.at(src, ['steps', i, 'id'], `step id ${s.id} is used twice`, 'give each step its own id');
    else ids.set(s.id, i);
  });
  if (raw.steps[0] && TERMINAL.has(raw.steps[0].kind)) sink.at(src, ['steps', 0, 'kind'], 'the first step must not be terminal', 'start with a validate step that checks the fault is still there');

  raw.steps.forEach((s, i) => {
    for (const t of transitions(s)) {
      if (!ids.has(t.target)) sink.at(src, ['steps', i, ...t.key], `step ${s.id} leads to unknown step ${t.target}`, `use the id of an existing step (${[...ids.keys()].join(', ')})`);
      if (t.target === s.id) sink.at(src, ['steps', i, ...t.key], `step ${s.id} leads to itself; use retry for polling`, 'use retry: { attempts, interval_s } on the step and point the transition elsewhere');
    }
    // The step as written, and as each platform variant makes it (checked where the variant is written).
    const forms: Array<{ step: RawStep; base: PathSegment[]; platform?: RawPlatform }> = [
      { step: s, base: ['steps', i] },
      ...variantPlatforms(s).map((p) => ({ step: stepForPlatform(s, p), base: ['steps', i, 'variants', p] as PathSegment[], platform: p })),
    ];
    checkStepPlatforms(raw, s, i, src, sink);
    for (const str of forms.flatMap((f) => stepStrings(f.step, f.base).filter((x) => f.platform === undefined || x.path.length > 0))) {
      const names = checkTemplate(str.path, str.text);
      if (!names) continue;
      // Strict mode allows exactly the RAW's show commands, rendered before the run: so only inputs may shape them.
      const late = str.role === 'command' ? names.filter((n) => !inputs.has(n)) : [];
      if (late.length) sink.at(src, str.path, `exec_cli commands may use RAW inputs only (strict mode renders them before the run); ${late.map((n) => `{{${n}}}`).join(', ')} is captured at run time`, 'use only inputs in show commands; test captured values with expect/failure_cases instead');
      for (const rendered of renderBothWays(names, str.text)) {
        if (str.role === 'regex') {
          try {
            new RegExp(rendered, REGEX_FLAGS);
          } catch (e) {
            sink.at(src, str.path, `regex does not compile: ${(e instanceof Error ? e.message : String(e))}`, 'fix the JavaScript regular expression (with its templates rendered)');
            break;
          }
        }
        const readOnly = str.role === 'command' ? checkReadOnlyCommand(rendered.trim()) : { ok: true as const };
        if (!readOnly.ok) {
          sink.at(src, str.path, `exec_cli must be a read-only show command (${readOnly.reason}), got "${rendered.trim()}"`, 'use a show command here; changes belong in a repair step (config_cli)');
          break;
        }
      }
    }
    if (s.kind === 'repair') {
      const all = s.action.commands.flatMap((c) => templateVariablesSafe(c));
      for (const rendered of [0, 1].map((k) => s.action.commands.map((c) => safeRender(c, all, k === 0)).filter((c) => c.trim() !== ''))) {
        if (rendered.length === 0) sink.at(src, ['steps', i, 'action', 'commands'], 'config_cli renders to no commands', 'give the repair at least one command that renders whether or not optional inputs are set');
      }
    }
    if (s.kind === 'validate' || s.kind === 'collect' || s.kind === 'revalidate') {
      const exp = [...s.expect, ...s.failure_cases.flatMap((c) => c.when)];
      exp.forEach((e) => {
        if ('var' in e && !known.has(e.var)) sink.at(src, ['steps', i], `expectation on ${e.var}, which is neither a RAW input nor captured`, `capture ${e.var} with a (?<${e.var}>…) group in capture:, or correct the name`);
      });
    }
  });

  checkCommandVariables(raw, src, sink);
  checkPostCheckPatterns(raw, src, sink);

  checkStepGraph(raw, ids, src, sink);
}
