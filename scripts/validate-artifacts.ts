/**
 * npm run artifacts:validate [-- AD000002 …] [--dir intelligence-artifacts]
 * Parses every artifact group (or the named ones) and checks its cross-references; prints
 * file:line:col and how to fix it for each problem, and exits 1 when there is any. Part of
 * `npm test` and CI. ARTIFACTS_DIR sets the default folder (tests point it at a copy).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatIssue, GROUP_ID, validateArtifactGroupDir, validateArtifactTree, type ArtifactGroup, type ValidationIssue } from '../src/runbooks/validate';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { dir: { type: 'string', default: process.env.ARTIFACTS_DIR ?? 'intelligence-artifacts' } },
});
const dir = values.dir;
const bad = positionals.filter((id) => !GROUP_ID.test(id));
if (bad.length) {
  console.error(`artifacts:validate: ${bad.join(', ')} is not an alert definition id (AD and six digits, e.g. AD000002)`);
  process.exit(2);
}

let groups: ArtifactGroup[] = [];
// Each named group on its own: a broken one does not hide the others' results.
const issues: ValidationIssue[] = [];
if (positionals.length === 0) {
  const tree = await validateArtifactTree(dir);
  groups = tree.groups;
  issues.push(...tree.issues);
} else {
  for (const id of positionals) {
    if (!existsSync(join(dir, id))) {
      console.error(`artifacts:validate: there is no group ${id} under ${dir} (npm run artifacts:new -- ${id} --from AD000002 creates one)`);
      process.exit(2);
    }
    const r = await validateArtifactGroupDir(join(dir, id));
    if (r.group) groups.push(r.group);
    issues.push(...r.issues);
  }
}
for (const g of groups) {
  console.log(`ok  ${g.alert_def_id}  FS ${g.fs.version}  RAW ${g.raw.version}  RG  ${g.tests.length} test case(s)  ${g.fs.title}`);
}
for (const issue of issues) console.error(formatIssue(issue, process.cwd(), { hint: true }));
if (groups.length === 0 && issues.length === 0) console.error(`no artifact groups found under ${dir}`);
process.exitCode = issues.length > 0 || groups.length === 0 ? 1 : 0;
