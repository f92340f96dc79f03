import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { celEnv, parse, plan } from '@bufbuild/cel';
import type { z } from 'zod';
import { parseYamlSource, type PathSegment, type YamlSource } from '../../runbooks/yaml-source';
import { recordWindow, type ChangeWindow } from './change-windows';
import { parseCalendar } from './ical-windows';
import { changeRecordsSchema, policySchema, type Policy } from './schema';
import { instantOf } from './zoned-time';
import { errorText } from '../error-body';

/** One thing wrong in a policy file, where it is, and what to do about it. */
export interface PolicyProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  fix: string;
}

export type CompiledWhen = (bindings: Record<string, unknown>) => unknown;

/** A policy as the relay uses it: validated, its expressions compiled once, its change records read. */
export interface LoadedPolicy {
  file: string;
  sha256: string;
  policy: Policy;
  when: Map<string, CompiledWhen>;
  /** One-off change records and recurring maintenance windows, in the order their files list them. */
  windows: ChangeWindow[];
  /** The policy file and every records file it names: what a reload watches. */
  sources: string[];
  /** SHA-256 over all of them: whether a reload changed anything. */
  digest: string;
}

export type PolicyLoad = { ok: true; loaded: LoadedPolicy } | { ok: false; problems: PolicyProblem[] };

const FIXES: Record<string, string> = {
  invalid_type: 'give it the type shown in the policy format (docs/policy.md)',
  unrecognized_keys: 'remove the key, or check its spelling against the policy format',
  invalid_value: 'use one of the allowed values',
};

function zodProblems(source: YamlSource, error: z.ZodError): PolicyProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.filter((p): p is PathSegment => typeof p === 'string' || typeof p === 'number');
    const where = source.locate(path);
    const at = path.length ? `${path.join('.')}: ` : '';
    return { file: source.file, ...where, message: `${at}${issue.message}`, fix: FIXES[issue.code] ?? 'correct the value as the message says' };
  });
}

const env = celEnv();

/** Compiles a class's `when`; a syntax error is reported at its place in the file. */
function compileWhen(source: YamlSource, index: number, text: string, problems: PolicyProblem[]): CompiledWhen | undefined {
  try {
    const run = plan(env, parse(text));
    return (bindings) => run(bindings as never);
  } catch (error) {
    const where = source.locate(['classes', index, 'when']);
    const m = /<input>:(\d+):(\d+): (.*)/s.exec(errorText(error));
    const column = m && Number(m[1]) === 1 ? where.column + Number(m[2]) : where.column;
    problems.push({ file: source.file, line: where.line, column, message: `classes.${index}.when: ${m?.[3]?.split('\n')[0] ?? errorText(error)}`, fix: 'write a CEL expression over alert, device, lines and now, such as alert.alert_def_id == "AD000002"' });
    return undefined;
  }
}

function timeProblems(source: YamlSource, policy: Policy, problems: PolicyProblem[]) {
  policy.freezes.forEach((f, i) => {
    if (instantOf(f.to, policy.timezone) <= instantOf(f.from, policy.timezone)) {
      problems.push({ file: source.file, ...source.locate(['freezes', i, 'to']), message: `freezes.${i}: "${f.name}" ends before it starts`, fix: 'set "to" after "from"' });
    }
  });
  const ids = new Set<string>();
  policy.classes.forEach((c, i) => {
    if (ids.has(c.id)) problems.push({ file: source.file, ...source.locate(['classes', i, 'id']), message: `classes.${i}: the id ${c.id} is used twice`, fix: 'give every class its own id' });
    ids.add(c.id);
  });
}

function readBeside(policyFile: string, name: string, problems: PolicyProblem[], read: Map<string, string>): { file: string; text: string } | undefined {
  const file = resolve(dirname(policyFile), name);
  read.set(file, '');
  try {
    const text = readFileSync(file, 'utf8');
    read.set(file, text);
    return { file, text };
  } catch (error) {
    problems.push({ file: policyFile, line: 1, column: 1, message: `change_records: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, fix: 'point change_records at a YAML or .ics file beside the policy' });
    return undefined;
  }
}

function yamlWindows(file: string, text: string, policy: Policy, problems: PolicyProblem[]): ChangeWindow[] {
  const source = parseYamlSource(text, file);
  if (source.syntaxErrors.length) {
    problems.push(...source.syntaxErrors.map((e) => ({ file, ...e, fix: 'correct the YAML syntax' })));
    return [];
  }
  const parsed = changeRecordsSchema.safeParse(source.data ?? {});
  if (!parsed.success) {
    problems.push(...zodProblems(source, parsed.error));
    return [];
  }
  parsed.data.records.forEach((r, i) => {
    if (instantOf(r.to, policy.timezone) <= instantOf(r.from, policy.timezone)) problems.push({ file, ...source.locate(['records', i, 'to']), message: `records.${i}: ${r.id} ends before it starts`, fix: 'set "to" after "from"' });
  });
  return parsed.data.records.map((r) => recordWindow(r, policy.timezone));
}

/** Change records from YAML and recurring windows from iCalendar (`.ics`), each file read as its name says. */
function loadWindows(policyFile: string, names: string[], policy: Policy, problems: PolicyProblem[], texts: Map<string, string>): ChangeWindow[] {
  return names.flatMap((name) => {
    const read = readBeside(policyFile, name, problems, texts);
    if (!read) return [];
    if (!/\.ics$/i.test(name)) return yamlWindows(read.file, read.text, policy, problems);
    const calendar = parseCalendar(read.text, policy.timezone);
    problems.push(...calendar.problems.map((p) => ({ file: read.file, line: p.line, column: 1, message: p.message, fix: p.fix })));
    return calendar.windows;
  });
}

/** Reads, validates and compiles a policy file: every problem at once, each with its place and a fix. */
export function loadPolicy(file: string): PolicyLoad {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, problems: [{ file: path, line: 1, column: 1, message: `cannot read the policy (${(error as NodeJS.ErrnoException).code ?? 'error'})`, fix: 'set POLICY_FILE to a readable policy file' }] };
  }
  const source = parseYamlSource(text, path);
  if (source.syntaxErrors.length) return { ok: false, problems: source.syntaxErrors.map((e) => ({ file: path, ...e, fix: 'correct the YAML syntax' })) };
  const parsed = policySchema.safeParse(source.data ?? {});
  if (!parsed.success) return { ok: false, problems: zodProblems(source, parsed.error) };
  const policy = parsed.data;
  const problems: PolicyProblem[] = [];
  const when = new Map<string, CompiledWhen>();
  policy.classes.forEach((c, i) => {
    const compiled = compileWhen(source, i, c.when, problems);
    if (compiled) when.set(c.id, compiled);
  });
  timeProblems(source, policy, problems);
  const recordFiles = typeof policy.change_records === 'string' ? [policy.change_records] : (policy.change_records ?? []);
  const texts = new Map<string, string>([[path, text]]);
  const windows = loadWindows(path, recordFiles, policy, problems, texts);
  if (problems.length) return { ok: false, problems };
  const sha256 = createHash('sha256').update(text).digest('hex');
  const all = createHash('sha256');
  for (const [file, content] of texts) all.update(`${file}\0${content}\0`);
  return { ok: true, loaded: { file: path, sha256, policy, when, windows, sources: [...texts.keys()], digest: all.digest('hex') } };
}

/** A problem as a person reads it in a terminal or on /health. */
export const describeProblem = (p: PolicyProblem) => `${p.file}:${p.line}:${p.column}: ${p.message} (fix: ${p.fix})`;
