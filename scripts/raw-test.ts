/**
 * npm run raw:test -- [AD000002 …] [--dir intelligence-artifacts] [--out out] [--frr | --netconf]
 * Runs the RAW test cases of the named groups (all when none) against an in-process lab
 * on virtual time; writes out/results.xml (JUnit) and out/summary.md. Exit 1 on any failure.
 * --frr: the cases marked `platforms: [… frr]` on real FRR routers (an FRR lab started for the
 * run, through the SSH device server), instead of the simulated lab.
 * --netconf: the cases marked `platforms: [… netconf]` on the NETCONF lab (netconfd behind sshd, started
 * for the run), through the device service: edit-config on the candidate, confirmed commit, read-back.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { formatIssue } from '../src/runbooks/validate';
import { ArtifactValidationError, listArtifactGroups, loadArtifactGroup } from '../src/runbooks/load';
import { runGroupTestsOnFrr } from '../harness/raw-tests/raw-test-frr';
import { runGroupTestsOnNetconf } from '../harness/raw-tests/raw-test-netconf';
import { runGroupTests, toJUnit, toSummaryMarkdown, type CaseResult } from '../harness/raw-tests/raw-test-runner';
import { DeviceService } from '../src/adapters/devices/device-service';
import { loadInventory } from '../src/adapters/devices/inventory';
import { frrLabUnavailable } from '../harness/frr-lab/host';
import { startFrrLab } from '../harness/frr-lab/lab';
import { startNetconfLab } from '../harness/netconf-lab/lab';
import { netconfLabUnavailable } from '../harness/netconf-lab/plan';

/**
 * A lab started in a temporary folder, with the SSH device service on its inventory; `stop` removes all
 * of it, and Ctrl-C does too. A machine that cannot run the lab gets the one-line reason and exit 2.
 */
async function startLabForTests<L extends { inventoryPath: string; stop(): Promise<void> }>(
  flag: string,
  unavailable: () => string | undefined,
  start: (dir: string) => Promise<L>,
  describe: (lab: L) => string,
) {
  const missing = unavailable();
  if (missing) {
    console.error(`raw:test ${flag}: ${missing}`);
    process.exit(2);
  }
  const dir = await mkdtemp(join(tmpdir(), 'fault-relay-rawtest-'));
  const lab = await start(join(dir, 'lab'));
  const service = new DeviceService(await loadInventory(lab.inventoryPath));
  const stop = async () => {
    await service.close();
    await lab.stop();
    await rm(dir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  console.log(describe(lab));
  return { lab, service, stop };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { dir: { type: 'string', default: 'intelligence-artifacts' }, out: { type: 'string', default: 'out' }, frr: { type: 'boolean' }, netconf: { type: 'boolean' } },
});

if (values.frr && values.netconf) {
  console.error('raw:test: --frr and --netconf are two runs; give one');
  process.exit(2);
}
const frr = values.frr
  ? await startLabForTests('--frr', frrLabUnavailable, (dir) => startFrrLab({ dir, routers: 2 }), (lab) => `FRR lab up: ${lab.routers.map((r) => `${r.name} (${r.ssh})`).join(', ')}`)
  : undefined;
const netconf = values.netconf
  ? await startLabForTests('--netconf', netconfLabUnavailable, (dir) => startNetconfLab({ dir }), (lab) => `NETCONF lab up: ${lab.node.name} (${lab.ssh})`)
  : undefined;

const dir = values.dir;
const ids = positionals.length ? positionals : (await listArtifactGroups(dir)).map((g) => g.alert_def_id);
const results: CaseResult[] = [];
let broken = false;
// A lab started for the run goes with it, also when a case throws.
try {
  for (const id of ids) {
    try {
      const group = await loadArtifactGroup(dir, id);
      if (group.tests.length === 0) console.warn(`${id}: no test cases in ${join(group.dir, 'tests')}`);
      if (frr) results.push(...(await runGroupTestsOnFrr(group, frr.lab, frr.service)));
      else if (netconf) results.push(...(await runGroupTestsOnNetconf(group, netconf.lab, netconf.service)));
      else results.push(...(await runGroupTests(group)));
    } catch (e) {
      if (!(e instanceof ArtifactValidationError)) throw e;
      broken = true;
      console.error(`${id}: artifacts do not validate`);
      for (const issue of e.issues) console.error(`  ${formatIssue(issue)}`);
    }
  }
} finally {
  await frr?.stop();
  await netconf?.stop();
}
await mkdir(values.out, { recursive: true });
await writeFile(join(values.out, 'results.xml'), toJUnit(results));
await writeFile(join(values.out, 'summary.md'), toSummaryMarkdown(results));
for (const r of results) {
  console.log(`${r.passed ? 'pass' : 'FAIL'}  ${r.group}  ${r.name}  (${r.result.outcome})`);
  for (const f of r.failures) console.log(`      ${f.replace(/\n/g, '\n      ')}`);
}
const failed = results.filter((r) => !r.passed).length;
console.log(`\n${results.length - failed}/${results.length} passed; wrote ${relative(process.cwd(), join(values.out, 'results.xml'))} and summary.md`);
process.exitCode = failed || broken || results.length === 0 ? 1 : 0;
