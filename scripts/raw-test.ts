/**
 * npm run raw:test -- [AD000002 …] [--dir intelligence-artifacts] [--out out]
 * Runs the RAW test cases of the named groups (all when none) against an in-process lab
 * on virtual time; writes out/results.xml (JUnit) and out/summary.md. Exit 1 on any failure.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { formatIssue } from '../src/artifacts/validate';
import { ArtifactValidationError, listArtifactGroups, loadArtifactGroup } from '../src/artifacts/load';
import { runGroupTests, toJUnit, toSummaryMarkdown, type CaseResult } from '../src/artifacts/raw-test-runner';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { dir: { type: 'string', default: 'intelligence-artifacts' }, out: { type: 'string', default: 'out' } },
});

const dir = values.dir!;
const ids = positionals.length ? positionals : (await listArtifactGroups(dir)).map((g) => g.alert_def_id);
const results: CaseResult[] = [];
let broken = false;
for (const id of ids) {
  try {
    const group = await loadArtifactGroup(dir, id);
    if (group.tests.length === 0) console.warn(`${id}: no test cases in ${join(group.dir, 'tests')}`);
    results.push(...(await runGroupTests(group)));
  } catch (e) {
    if (!(e instanceof ArtifactValidationError)) throw e;
    broken = true;
    console.error(`${id}: artifacts do not validate`);
    for (const issue of e.issues) console.error(`  ${formatIssue(issue)}`);
  }
}

await mkdir(values.out!, { recursive: true });
await writeFile(join(values.out!, 'results.xml'), toJUnit(results));
await writeFile(join(values.out!, 'summary.md'), toSummaryMarkdown(results));
for (const r of results) {
  console.log(`${r.passed ? 'pass' : 'FAIL'}  ${r.group}  ${r.name}  (${r.result.outcome})`);
  for (const f of r.failures) console.log(`      ${f.replace(/\n/g, '\n      ')}`);
}
const failed = results.filter((r) => !r.passed).length;
console.log(`\n${results.length - failed}/${results.length} passed; wrote ${relative(process.cwd(), join(values.out!, 'results.xml'))} and summary.md`);
process.exitCode = failed || broken || results.length === 0 ? 1 : 0;
