import { relative } from 'node:path';
import type { z } from 'zod';
import { STEP_KINDS } from './schema-raw';
import type { PathSegment, YamlSource } from './yaml-source';

export interface ValidationIssue {
  file: string;
  line: number;
  column: number;
  message: string;
}

export function formatIssue(issue: ValidationIssue, cwd = process.cwd()): string {
  const file = relative(cwd, issue.file) || issue.file;
  return `${file}:${issue.line}:${issue.column}: ${issue.message}`;
}

/** Collects issues in the order the checks find them, each pointed at a file position. */
export class IssueSink {
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

/** YAML syntax errors first, then schema errors, each at its position; undefined when anything is wrong. */
export function parseWith<T>(schema: z.ZodType<T>, src: YamlSource, sink: IssueSink): T | undefined {
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
