/**
 * `npm run eval -- --model <provider/model | scripted[/variant]> [--alert AD0000NN] [--frr] [--variant v]`
 * Scores a model before a team trusts it: every test case of every artifact group (or one group)
 * end to end through the real product (opencode with the shipped agents, the relay's guard and
 * approvals, the simulated lab or real FRR routers), the case's approval given by a scripted human.
 * Prints a scorecard per case and in total, writes out/eval.json and out/eval.xml; exit 1 when a case fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { REMEDIATION_VARIANTS } from '../harness/demo/brain';
import { caseLine, parseModelSpec, startEval, totalsText, writeEvalFiles, type EvalSession } from '../harness/eval';
import { createLogger } from '../src/adapters/log/logger';
import { cli, type Fail } from './cli';
import { errorText } from '../src/core/error-body';

const HELP = `Usage: npm run eval -- --model <provider/model> [options]
  --model M        scripted (the scripted agent), scripted/<variant>, or provider/model as opencode's configured provider names it
  --variant V      the scripted agent's behaviour: ${REMEDIATION_VARIANTS.join(', ')} (default faithful)
  --alert ID       one artifact group (default: every group in intelligence-artifacts/)
  --frr            real FRRouting routers in network namespaces (root); cases not marked for FRR, or whose faults FRR cannot build, are skipped with the reason
  --out DIR        where eval.json and eval.xml go (default out)
  --case-timeout-s N  a run not ended by then scores "timeout" (default 300)
  -h, --help       this text`;

const tool = cli('eval', HELP);
const fail: Fail = tool.fail;
const args = tool.parse(() =>
  parseArgs({
    options: {
      model: { type: 'string' },
      variant: { type: 'string' },
      alert: { type: 'string' },
      frr: { type: 'boolean' },
      out: { type: 'string', default: 'out' },
      'case-timeout-s': { type: 'string', default: '300' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values,
);
if (!args.model) fail(`--model is required\n${HELP}`);
if (args.alert !== undefined && !/^AD\d{6}$/.test(args.alert)) fail('--alert must be an alert definition id like AD000002');
const caseTimeoutS = Number(args['case-timeout-s']);
if (!Number.isInteger(caseTimeoutS) || caseTimeoutS < 10) fail('--case-timeout-s must be a whole number of at least 10');
let model;
try {
  model = parseModelSpec(args.model, args.variant);
} catch (error) {
  fail(errorText(error));
}

const projectDir = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'fault-relay-eval-'));
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', destination: pino.destination({ dest: path.join(dataDir, 'relay.log'), sync: true }) });
const out = (line = '') => process.stdout.write(`${line}\n`);

let session: EvalSession | undefined;
const stop = async (code: number) => {
  await session?.stop().catch(() => undefined);
  if (code === 0) rmSync(dataDir, { recursive: true, force: true });
  else out(`  eval data kept for a look: ${dataDir} (relay.log)`);
  process.exit(code);
};
process.once('SIGINT', () => void stop(130));

out(`Scoring ${model.kind === 'scripted' ? `the SCRIPTED agent (${model.variant})` : `${model.model} through opencode's configured provider`} on ${args.frr ? 'real FRR routers' : 'the simulated lab'}`);
try {
  session = await startEval({ projectDir, dataDir, logger, model, frr: args.frr ?? false, caseTimeoutMs: caseTimeoutS * 1000 });
} catch (error) {
  process.stderr.write(`eval: could not start: ${errorText(error)}\n`);
  await stop(1);
}
const report = await session!.run({ ...(args.alert ? { alert: args.alert } : {}), onCase: (c) => out(caseLine(c)) }).catch(async (error: unknown) => {
  process.stderr.write(`eval: ${errorText(error)}\n`);
  return stop(1);
});
const files = await writeEvalFiles(path.resolve(args.out), report);
out();
out(totalsText(report));
out(`  wrote ${path.relative(process.cwd(), files.json)} and ${path.relative(process.cwd(), files.xml)}`);
await stop(report.totals.failed > 0 || report.totals.cases === report.totals.skipped ? 1 : 0);
