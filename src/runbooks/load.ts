import { platformOf, stepForPlatform } from './variants';
import { join } from 'node:path';
import type { RepairActionWorkflow } from './schema-raw';
import { FormatError } from './formats';
import { renderCommand } from './render-command';
import { templateVariables } from './template';
import {
  formatIssue,
  GROUP_ID,
  listGroupDirs,
  validateArtifactGroupDir,
  type ArtifactGroup,
  type ValidationIssue,
} from './validate';

export type { ArtifactGroup, ValidationIssue } from './validate';

export class ArtifactValidationError extends Error {
  override readonly name = 'ArtifactValidationError';
  constructor(readonly issues: ValidationIssue[]) {
    super(`artifact group is invalid:\n${issues.map((i) => `  ${formatIssue(i)}`).join('\n')}`);
  }
}

/**
 * Loads and validates one group (`<dir>/<alertDefId>/FS.yaml, RAW.yaml, RG.md, tests/`).
 * Throws ArtifactValidationError, with file:line for every problem, when anything is off:
 * an agent must never act on a half-valid runbook.
 */
export async function loadArtifactGroup(dir: string, alertDefId: string): Promise<ArtifactGroup> {
  if (!GROUP_ID.test(alertDefId)) {
    throw new ArtifactValidationError([{ file: dir, line: 1, column: 1, message: `"${alertDefId}" is not an alert definition id`, hint: 'use AD and six digits, e.g. AD000002' }]);
  }
  const { group, issues } = await validateArtifactGroupDir(join(dir, alertDefId));
  if (!group) throw new ArtifactValidationError(issues);
  return group;
}

export interface ArtifactGroupSummary {
  alert_def_id: string;
  dir: string;
  valid: boolean;
  title?: string;
  severity?: string;
  fs_version?: string;
  raw_version?: string;
  tests?: number;
  /** Formatted `file:line:col: message` lines when the group is invalid. */
  problems: string[];
}

/** All groups under `dir`, valid or not, for pickers and diagnostics. */
export async function listArtifactGroups(dir: string): Promise<ArtifactGroupSummary[]> {
  const out: ArtifactGroupSummary[] = [];
  for (const groupDir of await listGroupDirs(dir)) {
    const id = groupDir.split(/[\\/]/).pop()!;
    if (!GROUP_ID.test(id)) continue;
    const { group, issues } = await validateArtifactGroupDir(groupDir);
    out.push(
      group
        ? {
            alert_def_id: id,
            dir: groupDir,
            valid: true,
            title: group.fs.title,
            severity: group.fs.severity,
            fs_version: group.fs.version,
            raw_version: group.raw.version,
            tests: group.tests.length,
            problems: [],
          }
        : { alert_def_id: id, dir: groupDir, valid: false, problems: issues.map((i) => formatIssue(i)) },
    );
  }
  return out;
}

/**
 * The read-only commands a RAW runs, rendered for one incident: what strict mode allows.
 * Inputs fall back to their defaults; a command that needs a value only known at run time
 * (a capture) cannot be rendered ahead and is left out, and so is one whose value fails its format.
 */
export function rawReadOnlyCommands(raw: RepairActionWorkflow, vars: Readonly<Record<string, string | undefined>>): string[] {
  const values: Record<string, string | undefined> = {};
  for (const input of raw.inputs) values[input.name] = vars[input.name] ?? input.default;
  for (const [k, v] of Object.entries(vars)) values[k] ??= v;
  const commands = new Set<string>();
  for (const written of raw.steps) {
    const step = stepForPlatform(written, platformOf(values));
    if (step.kind !== 'validate' && step.kind !== 'collect' && step.kind !== 'revalidate') continue;
    const template = step.action.command;
    if (templateVariables(template).some((n) => values[n] === undefined && !isSectionOnly(template, n))) continue;
    try {
      commands.add(renderCommand(raw, template, values).trim());
    } catch (error) {
      // A value that fails its format allows no command at all: never one the alert's text shaped.
      if (error instanceof FormatError) continue;
      throw error;
    }
  }
  return [...commands];
}

/** A name used only as {{#name}}/{{^name}} section may be unset; a plain {{name}} may not. */
function isSectionOnly(template: string, name: string): boolean {
  return !new RegExp(`\\{\\{\\s*${name}\\s*(\\|[^}]*)?\\}\\}`).test(template);
}
