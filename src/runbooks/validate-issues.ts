import { relative } from 'node:path';
import type { z } from 'zod';
import { STEP_KINDS } from './schema-raw';
import type { PathSegment, YamlSource } from './yaml-source';

export interface ValidationIssue {
  file: string;
  line: number;
  column: number;
  message: string;
  /** How to fix it, in the author's terms: every issue has one, so no error is a dead end. */
  hint: string;
}

/** `file:line:col: message`, and with `hint` a second line `  fix: …` (what the validator prints). */
export function formatIssue(issue: ValidationIssue, cwd = process.cwd(), opts: { hint?: boolean } = {}): string {
  const file = relative(cwd, issue.file) || issue.file;
  const line = `${file}:${issue.line}:${issue.column}: ${issue.message}`;
  return opts.hint ? `${line}\n    fix: ${issue.hint}` : line;
}

const README = 'intelligence-artifacts/README.md';

/** Collects issues in the order the checks find them, each pointed at a file position. */
export class IssueSink {
  readonly issues: ValidationIssue[] = [];
  at(src: YamlSource, path: readonly PathSegment[], message: string, hint: string): void {
    this.issues.push({ file: src.file, ...src.locate(path), message, hint });
  }
  file(file: string, message: string, hint: string, line = 1): void {
    this.issues.push({ file, line, column: 1, message, hint });
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

/** What to do about a schema error; the README's field tables say what each key means. */
function zodHint(issue: z.core.$ZodIssue): string {
  const key = issue.path.length ? `\`${String(issue.path.at(-1))}\`` : 'the document';
  switch (issue.code) {
    case 'unrecognized_keys':
      return `remove or rename the key (a typo?); the allowed keys are listed in ${README}`;
    case 'invalid_type':
      return issue.input === undefined ? `add ${key}: it is required (see ${README})` : `give ${key} a ${issue.expected} value (see ${README})`;
    case 'invalid_union':
      return `use one of the forms listed in ${README}`;
    case 'invalid_value':
      return `use one of the listed values for ${key}`;
    case 'too_small':
      return `${key} needs at least ${String(issue.minimum)} ${issue.origin === 'string' ? 'character(s)' : 'item(s)'}`;
    case 'custom':
    case 'invalid_element':
    case 'invalid_format':
    case 'invalid_key':
    case 'not_multiple_of':
    case 'too_big':
      return `correct ${key} as the message says (see ${README})`;
  }
}

/** YAML syntax errors first, then schema errors, each at its position; undefined when anything is wrong. */
export function parseWith<T>(schema: z.ZodType<T>, src: YamlSource, sink: IssueSink): T | undefined {
  for (const e of src.syntaxErrors) sink.issues.push({ file: src.file, line: e.line, column: e.column, message: `YAML: ${e.message}`, hint: 'fix the YAML syntax at this position (indentation, an unclosed quote or bracket, a duplicate key)' });
  if (src.syntaxErrors.length) return undefined;
  const result = schema.safeParse(src.data);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const at = issue.code === 'unrecognized_keys' ? [...path, issue.keys[0]!] : path;
    sink.at(src, at, zodMessage(issue), zodHint(issue));
  }
  return undefined;
}
