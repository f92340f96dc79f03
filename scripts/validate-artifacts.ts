/**
 * npm run artifacts:validate [-- --dir intelligence-artifacts]
 * Parses every artifact group and checks its cross-references; prints file:line:col for
 * each problem and exits 1 when there is any. Part of `npm test` and CI.
 */
import { parseArgs } from 'node:util';
import { formatIssue, validateArtifactTree } from '../src/artifacts/validate';

const { values } = parseArgs({ options: { dir: { type: 'string', default: 'intelligence-artifacts' } } });
const { groups, issues } = await validateArtifactTree(values.dir!);
for (const g of groups) {
  console.log(`ok  ${g.alert_def_id}  FS ${g.fs.version}  RAW ${g.raw.version}  RG  ${g.tests.length} test case(s)  ${g.fs.title}`);
}
for (const issue of issues) console.error(formatIssue(issue));
if (groups.length === 0 && issues.length === 0) console.error(`no artifact groups found under ${values.dir}`);
process.exitCode = issues.length > 0 || groups.length === 0 ? 1 : 0;
