/**
 * npm run artifacts:new -- AD000004 [--from AD000002] [--dir intelligence-artifacts] [--kb-dir kb]
 * Scaffolds a new artifact group as a draft copy of a working one (ids rewritten, versions 0.1.0,
 * Alertmanager mapping dropped) plus its KB alert page, and prints what to edit next. Refuses a bad
 * or existing id with one line and exit 2. ARTIFACTS_DIR / KB_DIR set the defaults (tests use copies).
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { DRAFT_VERSION, scaffoldGroup, ScaffoldError } from '../src/runbooks/scaffold';
import { cli, type Fail } from './cli';

const HELP = `Usage: npm run artifacts:new -- AD000004 [options]
  --from ADxxxxxx    the group to copy (default AD000002)
  --dir PATH         artifacts folder (default $ARTIFACTS_DIR or intelligence-artifacts)
  --kb-dir PATH      KB vault (default $KB_DIR or kb)
  -h, --help         this text`;

const tool = cli('artifacts:new', HELP);
const fail: Fail = tool.fail;
let positionals: string[] = [];
const values = tool.parse(() => {
  const parsed = parseArgs({
    allowPositionals: true,
    options: {
      from: { type: 'string', default: 'AD000002' },
      dir: { type: 'string', default: process.env.ARTIFACTS_DIR ?? 'intelligence-artifacts' },
      'kb-dir': { type: 'string', default: process.env.KB_DIR ?? 'kb' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  positionals = parsed.positionals;
  return parsed.values;
});
if (positionals.length !== 1) fail(`name exactly one new alert definition id, e.g. npm run artifacts:new -- AD000004 --from AD000002`);
const id = positionals[0]!;

try {
  const result = await scaffoldGroup({ id, from: values.from, artifactsDir: values.dir, kbDir: values['kb-dir'] });
  // Paths inside the project relative to it, others (a temp copy) as given.
  const rel = (p: string) => (relative(process.cwd(), p).startsWith('..') ? p : relative(process.cwd(), p) || p);
  const dirArg = values.dir === 'intelligence-artifacts' ? '' : ` --dir ${values.dir}`;
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`created ${rel(result.dir)}/ from ${values.from} (versions ${DRAFT_VERSION}, titles marked DRAFT):`);
  for (const f of result.files) out(`  ${rel(f)}`);
  out(result.kbPage ? `created ${rel(result.kbPage)} (KB alert page stub)` : `kept the existing KB page for ${id}`);
  out();
  out('Next:');
  out(`  1. FS.yaml   title, description, detection.patterns (regex + real example lines), counter_examples,`);
  out(`               variables, required_alert_fields; key_fields/extract if the fault is not keyed by BGP neighbor;`);
  out(`               sources.alertmanager was dropped (re-add it with a match of its own)`);
  out(`  2. RAW.yaml  inputs (FS variables) and steps: validate → collect → repair → wait → revalidate → resolve/escalate`);
  out(`  3. RG.md     the same for humans; fs_version/raw_version must equal the FS and RAW versions`);
  out(`  4. tests/    one case per path through the RAW (the copied ones test ${values.from}'s fault)`);
  out(`  5. ${result.kbPage ? rel(result.kbPage) : `the KB page of ${id}`}  when the repair must not happen and who approves`);
  out(`  then: npm run artifacts:validate -- ${id}${dirArg}   (file:line and a fix for every problem)`);
  out(`        npm run raw:test -- ${id}${dirArg}`);
  out(`        npm run demo -- --alert ${id}   (the end-to-end run, offline: its first approved, resolved case)`);
} catch (error) {
  if (error instanceof ScaffoldError) fail(error.message);
  throw error;
}
