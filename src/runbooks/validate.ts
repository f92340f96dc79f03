import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FILE_NAMES, GROUP_ID } from './group-files';
import { faultSignatureSchema, type FaultSignature } from './schema-fs';
import { repairActionWorkflowSchema, type RepairActionWorkflow } from './schema-raw';
import type { RemediationGuide } from './schema-rg';
import { rawTestCaseSchema, type RawTestCase } from './schema-test-case';
import { checkFs } from './validate-fs';
import { IssueSink, parseWith, type ValidationIssue } from './validate-issues';
import { checkRaw } from './validate-raw';
import { checkOutcomeText } from './validate-outcome-text';
import { checkRg } from './validate-rg';
import { checkTestCase } from './validate-test-case';
import { parseYamlSource } from './yaml-source';

// The checks live in validate-*.ts; callers keep importing the public surface from here.
export { FILE_NAMES, GROUP_ID } from './group-files';
export { formatIssue, type ValidationIssue } from './validate-issues';

export interface ArtifactGroup {
  alert_def_id: string;
  dir: string;
  files: { fs: string; raw: string; rg: string };
  fs: FaultSignature;
  raw: RepairActionWorkflow;
  rg: RemediationGuide;
  tests: { file: string; testCase: RawTestCase }[];
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Parses and cross-checks one group folder. Returns the group only when there is no issue. */
export async function validateArtifactGroupDir(dir: string): Promise<{ group?: ArtifactGroup; issues: ValidationIssue[] }> {
  const sink = new IssueSink();
  const id = basename(dir);
  if (!GROUP_ID.test(id)) sink.file(dir, `folder name ${id} is not an alert definition id (AD and six digits)`, 'rename the folder to its alert definition id, e.g. AD000004 (npm run artifacts:new scaffolds one)');
  const files = { fs: join(dir, FILE_NAMES.fs), raw: join(dir, FILE_NAMES.raw), rg: join(dir, FILE_NAMES.rg) };

  let fs: FaultSignature | undefined;
  const fsText = await readIfExists(files.fs);
  if (fsText === undefined) sink.file(files.fs, `missing ${FILE_NAMES.fs}`, 'add the fault signature (copy one with npm run artifacts:new -- ADxxxxxx --from AD000002)');
  else {
    const src = parseYamlSource(fsText, files.fs);
    fs = parseWith(faultSignatureSchema, src, sink);
    if (fs) checkFs(fs, src, id, sink);
  }

  let raw: RepairActionWorkflow | undefined;
  const rawText = await readIfExists(files.raw);
  if (rawText === undefined) sink.file(files.raw, `missing ${FILE_NAMES.raw}`, 'add the repair action workflow (copy one with npm run artifacts:new -- ADxxxxxx --from AD000002)');
  else {
    const src = parseYamlSource(rawText, files.raw);
    raw = parseWith(repairActionWorkflowSchema, src, sink);
    if (raw) checkRaw(raw, src, fs, id, sink);
    if (raw) checkOutcomeText(raw, src, sink);
  }

  let rg: RemediationGuide | undefined;
  const rgText = await readIfExists(files.rg);
  if (rgText === undefined) sink.file(files.rg, `missing ${FILE_NAMES.rg}`, 'add the remediation guide (copy one with npm run artifacts:new -- ADxxxxxx --from AD000002)');
  else rg = checkRg(rgText, files.rg, id, fs, raw, sink);

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
