import { grammarProblem, PLATFORM } from '../devices/platforms';
import { checkReadOnlyCommand } from '../tools/read-only-command';
import type { RawPlatform } from './schema-raw';
import { stepForPlatform, variantPlatforms } from './variants';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import type { z } from 'zod';
import { namedGroups, REGEX_FLAGS } from './expectations';
import { faultSignatureSchema, type FaultSignature } from './schema-fs';
import { alertmanagerMappingProblems } from './source-mappings';
import { remediationGuideFrontMatterSchema, type RemediationGuide } from './schema-rg';
import { repairActionWorkflowSchema, STEP_KINDS, type Expectation, type RawStep, type RepairActionWorkflow } from './schema-raw';
import { rawTestCaseSchema, type RawTestCase } from './schema-test-case';
import { renderTemplate, TemplateError, templateVariables } from './template';
import { parseYamlSource, type PathSegment, type YamlSource } from './yaml-source';

export interface ValidationIssue {
  file: string;
  line: number;
  column: number;
  message: string;
}

export interface ArtifactGroup {
  alert_def_id: string;
  dir: string;
  files: { fs: string; raw: string; rg: string };
  fs: FaultSignature;
  raw: RepairActionWorkflow;
  rg: RemediationGuide;
  tests: { file: string; testCase: RawTestCase }[];
}

export const GROUP_ID = /^AD\d{6}$/;
export const FILE_NAMES = { fs: 'FS.yaml', raw: 'RAW.yaml', rg: 'RG.md', tests: 'tests' } as const;

export function formatIssue(issue: ValidationIssue, cwd = process.cwd()): string {
  const file = relative(cwd, issue.file) || issue.file;
  return `${file}:${issue.line}:${issue.column}: ${issue.message}`;
}

class IssueSink {
  readonly issues: ValidationIssue[] = [];
  at(src: YamlSource, path: readonly PathSegment[], message: string): void {
    this.issues.push({ file: src.file, ...src.locate(path), message });
  }
  file(file: string, message: string): void {
    this.issues.push({ file, line: 1, column: 1, message });
  }
}

function zodMessage(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  if (issue.code === 'invalid_union' && issue.path.at(-1) === 'kind') {
    return `${where}step kind must be one of ${STEP_KINDS.join(', ')}`;
  }
  if (issue.code === 'invalid_union') {
    return `${where}not a valid expectation: use one of contains, not_contains, matches, not_matches, or var with equals/gt/lt`;
  }
  if (issue.code === 'unrecognized_keys') return `${where}unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
  return `${where}${issue.message}`;
}

function parseWith<T>(schema: z.ZodType<T>, src: YamlSource, sink: IssueSink): T | undefined {
  for (const e of src.syntaxErrors) sink.issues.push({ file: src.file, line: e.line, column: e.column, message: `YAML: ${e.message}` });
  if (src.syntaxErrors.length) return undefined;
  const result = schema.safeParse(src.data);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const at = issue.code === 'unrecognized_keys' ? [...path, issue.keys[0]!] : path;
    sink.at(src, at, zodMessage(issue));
  }
  return undefined;
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Splits `---\nfront matter\n---\nbody`; the front matter starts on line 2 of the file. */
function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  return m ? { yaml: m[1]!, body: m[2]! } : undefined;
}

function checkFs(fs: FaultSignature, src: YamlSource, id: string, sink: IssueSink): void {
  if (fs.alert_def_id !== id) sink.at(src, ['alert_def_id'], `alert_def_id ${fs.alert_def_id} does not match the folder ${id}`);
  const names = new Map<string, number>();
  fs.variables.forEach((v, i) => {
    if (names.has(v.name)) sink.at(src, ['variables', i, 'name'], `variable ${v.name} is declared twice`);
    names.set(v.name, i);
  });
  const captured = new Set<string>();
  const compiled: RegExp[] = [];
  fs.detection.patterns.forEach((p, i) => {
    let re: RegExp;
    try {
      re = new RegExp(p.regex, REGEX_FLAGS);
    } catch (e) {
      sink.at(src, ['detection', 'patterns', i, 'regex'], `regex does not compile: ${(e as Error).message}`);
      return;
    }
    compiled.push(re);
    for (const g of namedGroups(p.regex)) {
      captured.add(g);
      const v = fs.variables.find((x) => x.name === g);
      if (!v) sink.at(src, ['detection', 'patterns', i, 'regex'], `captures (?<${g}>…) but no variable ${g} is declared`);
      else if (!v.sources.includes('pattern')) sink.at(src, ['variables', names.get(g)!, 'sources'], `variable ${g} is captured by pattern ${p.id} but its sources do not include pattern`);
    }
    p.examples.forEach((ex, j) => {
      const m = re.exec(ex.line);
      if (!m) {
        sink.at(src, ['detection', 'patterns', i, 'examples', j, 'line'], `example does not match pattern ${p.id}`);
        return;
      }
      const got = Object.fromEntries(Object.entries(m.groups ?? {}).filter(([, v]) => v !== undefined));
      const keys = new Set([...Object.keys(got), ...Object.keys(ex.captures)]);
      for (const k of keys) {
        if (got[k] !== ex.captures[k]) {
          sink.at(src, ['detection', 'patterns', i, 'examples', j, 'captures'], `example captures ${k}=${got[k] ?? '(nothing)'} but the example says ${ex.captures[k] ?? '(nothing)'}`);
        }
      }
    });
  });
  fs.detection.counter_examples.forEach((line, k) => {
    if (compiled.some((re) => re.test(line))) sink.at(src, ['detection', 'counter_examples', k], 'counter-example matches a detection pattern');
  });
  fs.variables.forEach((v, i) => {
    if (v.sources.includes('pattern') && !captured.has(v.name)) sink.at(src, ['variables', i, 'sources'], `variable ${v.name} names pattern as a source but no pattern captures it`);
  });
  fs.required_alert_fields.forEach((f, i) => {
    for (const name of f.split('|')) {
      if (!names.has(name)) sink.at(src, ['required_alert_fields', i], `required field ${name} is not a declared variable`);
    }
  });
  for (const p of alertmanagerMappingProblems(fs)) sink.at(src, p.path, p.message);
}

/** Every templated string of a step with its path, for template and regex checks. */
function stepStrings(step: RawStep, base: PathSegment[]): { path: PathSegment[]; text: string; role: 'command' | 'regex' | 'text' }[] {
  const out: { path: PathSegment[]; text: string; role: 'command' | 'regex' | 'text' }[] = [];
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

function transitions(step: RawStep): { key: PathSegment[]; target: string }[] {
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
    default:
      return [];
  }
}

const TERMINAL = new Set(['resolve', 'fail', 'escalate']);

function checkRaw(raw: RepairActionWorkflow, src: YamlSource, fs: FaultSignature | undefined, id: string, sink: IssueSink): void {
  if (raw.alert_def_id !== id) sink.at(src, ['alert_def_id'], `alert_def_id ${raw.alert_def_id} does not match the folder ${id}`);
  if (fs && raw.fs_version !== fs.version) {
    sink.at(src, ['fs_version'], `RAW was written for FS ${raw.fs_version} but ${FILE_NAMES.fs} is version ${fs.version}`);
  }
  const inputs = new Set<string>();
  raw.inputs.forEach((input, i) => {
    if (inputs.has(input.name)) sink.at(src, ['inputs', i, 'name'], `input ${input.name} is declared twice`);
    inputs.add(input.name);
    const fv = fs?.variables.find((v) => v.name === input.name);
    if (fs && !fv) {
      sink.at(src, ['inputs', i, 'name'], `input ${input.name} is not a variable of the FS (FS variables: ${fs.variables.map((v) => v.name).join(', ')})`);
    }
    if (fv && input.format && input.format !== fv.format) sink.at(src, ['inputs', i, 'format'], `format ${input.format} differs from the FS's ${fv.format} for ${input.name}`);
  });

  const captures = new Set<string>();
  raw.steps.forEach((s) => {
    if (s.kind === 'validate' || s.kind === 'collect' || s.kind === 'revalidate') s.capture.forEach((c) => namedGroups(c).forEach((g) => captures.add(g)));
  });
  const known = new Set([...inputs, ...captures]);

  const checkTemplate = (path: PathSegment[], text: string): string[] | undefined => {
    try {
      const names = templateVariables(text);
      for (const n of names) if (!known.has(n)) sink.at(src, path, `{{${n}}} is neither a RAW input nor captured by any step`);
      return names;
    } catch (e) {
      sink.at(src, path, `template: ${(e as TemplateError).message}`);
      return undefined;
    }
  };
  // Render both ways round (every variable set / every variable empty) so both branches of a section are checked.
  const variants = (names: string[], text: string) =>
    [Object.fromEntries(names.map((n) => [n, 'x'])), Object.fromEntries(names.map((n) => [n, '']))].map((v) => renderTemplate(text, v));

  checkTemplate(['device'], raw.device);

  const ids = new Map<string, number>();
  raw.steps.forEach((s, i) => {
    if (ids.has(s.id)) sink.at(src, ['steps', i, 'id'], `step id ${s.id} is used twice`);
    else ids.set(s.id, i);
  });
  if (raw.steps[0] && TERMINAL.has(raw.steps[0].kind)) sink.at(src, ['steps', 0, 'kind'], 'the first step must not be terminal');

  raw.steps.forEach((s, i) => {
    for (const t of transitions(s)) {
      if (!ids.has(t.target)) sink.at(src, ['steps', i, ...t.key], `step ${s.id} leads to unknown step ${t.target}`);
      if (t.target === s.id) sink.at(src, ['steps', i, ...t.key], `step ${s.id} leads to itself; use retry for polling`);
    }
    // The step as written, and as each platform variant makes it (checked where the variant is written).
    const forms: Array<{ step: RawStep; base: PathSegment[]; platform?: RawPlatform }> = [
      { step: s, base: ['steps', i] },
      ...variantPlatforms(s).map((p) => ({ step: stepForPlatform(s, p), base: ['steps', i, 'variants', p] as PathSegment[], platform: p })),
    ];
    for (const p of variantPlatforms(s)) {
      if (!raw.platforms.includes(p)) sink.at(src, ['steps', i, 'variants', p], `variant for ${p}, which is not in the workflow's platforms (${raw.platforms.join(', ')})`);
    }
    for (const platform of raw.platforms) {
      const effective = stepForPlatform(s, platform);
      if (effective.kind !== 'validate' && effective.kind !== 'collect' && effective.kind !== 'revalidate') continue;
      // Point at the command the platform actually gets: its variant's, or the step's own.
      const ownAction = 'variants' in s && (s.variants as Record<string, { action?: unknown } | undefined> | undefined)?.[platform]?.action;
      const where: PathSegment[] = ownAction ? ['steps', i, 'variants', platform, 'action', 'command'] : ['steps', i, 'action', 'command'];
      const names = templateVariablesSafe(effective.action.command);
      for (const rendered of variants(names, effective.action.command)) {
        const problem = grammarProblem(PLATFORM[platform], rendered.trim());
        if (problem) {
          sink.at(src, where, `on ${platform}, "${rendered.trim()}" is not in the platform's grammar: ${problem}; add a variant for ${platform}`);
          break;
        }
      }
    }
    for (const str of forms.flatMap((f) => stepStrings(f.step, f.base).filter((x) => f.platform === undefined || x.path.length > 0))) {
      const names = checkTemplate(str.path, str.text);
      if (!names) continue;
      // Strict mode allows exactly the RAW's show commands, rendered before the run: so only inputs may shape them.
      const late = str.role === 'command' ? names.filter((n) => !inputs.has(n)) : [];
      if (late.length) sink.at(src, str.path, `exec_cli commands may use RAW inputs only (strict mode renders them before the run); ${late.map((n) => `{{${n}}}`).join(', ')} is captured at run time`);
      for (const rendered of variants(names, str.text)) {
        if (str.role === 'regex') {
          try {
            new RegExp(rendered, REGEX_FLAGS);
          } catch (e) {
            sink.at(src, str.path, `regex does not compile: ${(e as Error).message}`);
            break;
          }
        }
        const readOnly = str.role === 'command' ? checkReadOnlyCommand(rendered.trim()) : { ok: true as const };
        if (!readOnly.ok) {
          sink.at(src, str.path, `exec_cli must be a read-only show command (${readOnly.reason}), got "${rendered.trim()}"`);
          break;
        }
      }
    }
    if (s.kind === 'repair') {
      const all = s.action.commands.flatMap((c) => templateVariablesSafe(c));
      for (const rendered of [0, 1].map((k) => s.action.commands.map((c) => safeRender(c, all, k === 0)).filter((c) => c.trim() !== ''))) {
        if (rendered.length === 0) sink.at(src, ['steps', i, 'action', 'commands'], 'config_cli renders to no commands');
      }
    }
    if (s.kind === 'validate' || s.kind === 'collect' || s.kind === 'revalidate') {
      const exp = [...s.expect, ...s.failure_cases.flatMap((c) => c.when)];
      exp.forEach((e) => {
        if ('var' in e && !known.has(e.var)) sink.at(src, ['steps', i], `expectation on ${e.var}, which is neither a RAW input nor captured`);
      });
    }
  });

  // Every step must be reachable from the first, and every run must be able to end.
  const reachable = new Set<string>();
  const queue = raw.steps[0] ? [raw.steps[0].id] : [];
  while (queue.length) {
    const id2 = queue.shift()!;
    if (reachable.has(id2)) continue;
    reachable.add(id2);
    const s = raw.steps[ids.get(id2) ?? -1];
    if (s) queue.push(...transitions(s).map((t) => t.target).filter((t) => ids.has(t)));
  }
  raw.steps.forEach((s, i) => {
    if (!reachable.has(s.id)) sink.at(src, ['steps', i, 'id'], `step ${s.id} is never reached from ${raw.steps[0]?.id}`);
  });
  for (const kind of ['resolve', 'escalate'] as const) {
    if (!raw.steps.some((s) => s.kind === kind)) sink.at(src, ['steps'], `the workflow has no ${kind} step`);
  }
  if (raw.steps.some((s) => s.kind === 'repair') && !raw.steps.some((s) => s.kind === 'revalidate')) {
    sink.at(src, ['steps'], 'a workflow that repairs must revalidate');
  }
}

function templateVariablesSafe(text: string): string[] {
  try {
    return templateVariables(text);
  } catch {
    return [];
  }
}

function safeRender(text: string, names: string[], set: boolean): string {
  try {
    return renderTemplate(text, Object.fromEntries(names.map((n) => [n, set ? 'x' : ''])));
  } catch {
    return text;
  }
}

function checkTestCase(tc: RawTestCase, src: YamlSource, raw: RepairActionWorkflow, sink: IssueSink): void {
  const byId = new Map(raw.steps.map((s) => [s.id, s]));
  tc.expect.path.forEach((id, k) => {
    if (!byId.has(id)) sink.at(src, ['expect', 'path', k], `step ${id} is not in RAW ${raw.alert_def_id}`);
  });
  const last = byId.get(tc.expect.path.at(-1) ?? '');
  if (last) {
    const outcome = last.kind === 'resolve' ? 'resolved' : last.kind === 'fail' ? 'failed' : last.kind === 'escalate' ? 'escalated' : undefined;
    if (!outcome) sink.at(src, ['expect', 'path', tc.expect.path.length - 1], `the path must end with a terminal step; ${last.id} is ${last.kind}`);
    else if (outcome !== tc.expect.outcome) sink.at(src, ['expect', 'outcome'], `outcome ${tc.expect.outcome} contradicts the path, which ends in ${last.kind} step ${last.id}`);
  }
}

/** Parses and cross-checks one group folder. Returns the group only when there is no issue. */
export async function validateArtifactGroupDir(dir: string): Promise<{ group?: ArtifactGroup; issues: ValidationIssue[] }> {
  const sink = new IssueSink();
  const id = basename(dir);
  if (!GROUP_ID.test(id)) sink.file(dir, `folder name ${id} is not an alert definition id (AD and six digits)`);
  const files = { fs: join(dir, FILE_NAMES.fs), raw: join(dir, FILE_NAMES.raw), rg: join(dir, FILE_NAMES.rg) };

  let fs: FaultSignature | undefined;
  const fsText = await readIfExists(files.fs);
  if (fsText === undefined) sink.file(files.fs, `missing ${FILE_NAMES.fs}`);
  else {
    const src = parseYamlSource(fsText, files.fs);
    fs = parseWith(faultSignatureSchema, src, sink);
    if (fs) checkFs(fs, src, id, sink);
  }

  let raw: RepairActionWorkflow | undefined;
  const rawText = await readIfExists(files.raw);
  if (rawText === undefined) sink.file(files.raw, `missing ${FILE_NAMES.raw}`);
  else {
    const src = parseYamlSource(rawText, files.raw);
    raw = parseWith(repairActionWorkflowSchema, src, sink);
    if (raw) checkRaw(raw, src, fs, id, sink);
  }

  let rg: RemediationGuide | undefined;
  const rgText = await readIfExists(files.rg);
  if (rgText === undefined) sink.file(files.rg, `missing ${FILE_NAMES.rg}`);
  else {
    const parts = splitFrontMatter(rgText);
    if (!parts) sink.file(files.rg, 'RG.md must start with YAML front matter between --- lines');
    else {
      const src = parseYamlSource(parts.yaml, files.rg, 1);
      const fm = parseWith(remediationGuideFrontMatterSchema, src, sink);
      if (fm) {
        if (fm.alert_def_id !== id) sink.at(src, ['alert_def_id'], `alert_def_id ${fm.alert_def_id} does not match the folder ${id}`);
        if (fs && fm.fs_version !== fs.version) sink.at(src, ['fs_version'], `RG explains FS ${fm.fs_version} but ${FILE_NAMES.fs} is version ${fs.version}`);
        if (raw && fm.raw_version !== raw.version) sink.at(src, ['raw_version'], `RG explains RAW ${fm.raw_version} but ${FILE_NAMES.raw} is version ${raw.version}`);
        if (parts.body.trim().length < 200) sink.file(files.rg, 'RG.md body is too short to explain the fault and its remediation');
        rg = { frontMatter: fm, body: parts.body };
      }
    }
  }

  const tests: ArtifactGroup['tests'] = [];
  const testDir = join(dir, FILE_NAMES.tests);
  const testFiles = await readdir(testDir).catch(() => [] as string[]);
  for (const name of testFiles.filter((f) => f.endsWith('.yaml')).sort()) {
    const file = join(testDir, name);
    const src = parseYamlSource(await readFile(file, 'utf8'), file);
    const tc = parseWith(rawTestCaseSchema, src, sink);
    if (tc && raw) checkTestCase(tc, src, raw, sink);
    if (tc) tests.push({ file, testCase: tc });
  }

  const issues = sink.issues;
  if (issues.length || !fs || !raw || !rg) return { issues };
  return { group: { alert_def_id: id, dir, files, fs, raw, rg, tests }, issues };
}

/** Every group folder under the artifacts root. */
export async function listGroupDirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  const dirs: string[] = [];
  for (const e of entries) {
    if (e.isDirectory() && !e.name.startsWith('.')) dirs.push(join(root, e.name));
    else if (e.isSymbolicLink() && (await stat(join(root, e.name))).isDirectory()) dirs.push(join(root, e.name));
  }
  return dirs.sort();
}

export async function validateArtifactTree(root: string): Promise<{ groups: ArtifactGroup[]; issues: ValidationIssue[] }> {
  const groups: ArtifactGroup[] = [];
  const issues: ValidationIssue[] = [];
  for (const dir of await listGroupDirs(root)) {
    const r = await validateArtifactGroupDir(dir);
    if (r.group) groups.push(r.group);
    issues.push(...r.issues);
  }
  return { groups, issues };
}
