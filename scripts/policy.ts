import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { inventoryFacts } from '../src/adapters/devices/inventory-lookup';
import { evaluatePolicy } from '../src/core/policy/evaluate';
import { describeProblem, loadPolicy } from '../src/core/policy/load';
import { staffingWarnings } from '../src/core/policy/staffing';
import { loadOperators, OperatorsError } from '../src/core/operators/operators';
import { instantOf } from '../src/core/policy/zoned-time';
import { errorText } from '../src/core/error-body';

/**
 * `npm run policy -- check [file] [--operators operators.yaml]`: validates a policy as the relay would load it;
 * with OPERATORS_FILE (or --operators), warns of a group nobody is in or a count the groups cannot reach.
 * `npm run policy -- explain --alert <file.json | k=v,k=v> --device R1 [--at <time>] [--file policy.yaml]`:
 * the verdict for that change and the rule that gave it, as a person checks a policy before trusting it.
 * A time without an offset is in the policy's zone; the device's platform and tags come from
 * --inventory (or DEVICE_INVENTORY), as the relay reads them.
 */
const USAGE =
  'usage: npm run policy -- check [file] [--operators operators.yaml] | explain --alert <file.json | alert_def_id=AD000002,neighbor_ip=10.0.0.2> --device R1 [--severity P1] [--at 2026-12-20T03:00] [--line "…"] [--inventory devices.yaml] [--file policy.yaml]';
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};
const [command, ...rest] = process.argv.slice(2);
const options = { operators: { type: 'string' }, alert: { type: 'string' }, device: { type: 'string' }, at: { type: 'string' }, file: { type: 'string' }, severity: { type: 'string' }, inventory: { type: 'string' }, line: { type: 'string', multiple: true } } as const;
let parsedArgs: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>;
try {
  parsedArgs = parseArgs({ args: rest, allowPositionals: true, options });
} catch (error) {
  fail(`${errorText(error).split('.')[0]}.\n${USAGE}`);
}
const { values, positionals } = parsedArgs!;
const file = values.file ?? positionals[0] ?? process.env.POLICY_FILE ?? 'policy.yaml';
const load = loadPolicy(file);
if (!load.ok) {
  for (const p of load.problems) console.error(describeProblem(p));
  console.error(`${load.problems.length} problem${load.problems.length > 1 ? 's' : ''}: the relay would keep its last good policy, or refuse to start without one.`);
  process.exit(1);
}
const { loaded } = load;
if (command === 'check') {
  console.log(`${loaded.file}: ok, ${loaded.policy.classes.length} classes, ${loaded.policy.freezes.length} freezes, ${loaded.windows.length} change records and windows (sha256 ${loaded.sha256})`);
  const operatorsFile = values.operators ?? process.env.OPERATORS_FILE;
  if (operatorsFile) {
    try {
      const warnings = staffingWarnings(loaded.policy, loadOperators(operatorsFile));
      for (const w of warnings) console.warn(`warning: ${w}`);
      if (!warnings.length) console.log(`${operatorsFile}: every group the policy names has approvers enough`);
    } catch (error) {
      if (!(error instanceof OperatorsError)) throw error;
      console.error(error.message);
      process.exit(1);
    }
  }
  process.exit(0);
}
if (command !== 'explain' || !values.alert || !values.device) fail(USAGE);

/** An alert file as the relay stores it (alert_vars nested) or flat; strings only, as alerts carry. */
function alertFields(spec: string): Record<string, string> {
  if (spec.includes('=')) return Object.fromEntries(spec.split(',').map((kv) => kv.split('=', 2) as [string, string]));
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(spec, 'utf8'));
  } catch (error) {
    return fail(`--alert: cannot read ${spec} as JSON (${(error as NodeJS.ErrnoException).code ?? errorText(error)})`);
  }
  const { alert_vars: nested, ...top } = (raw ?? {}) as Record<string, unknown>;
  const flat = { ...top, ...(nested && typeof nested === 'object' ? nested : {}) };
  return Object.fromEntries(Object.entries(flat).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
const { alert_def_id: alertDefId = '', severity = values.severity ?? '', ...vars } = alertFields(values.alert!);
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const at = values.at ? new Date(LOCAL.test(values.at) ? instantOf(values.at, loaded.policy.timezone) : Date.parse(values.at)) : new Date();
if (Number.isNaN(at.getTime())) fail(`--at: "${values.at}" is not a time (use 2026-12-20T03:00 in the policy's zone, or 2026-12-20T03:00Z)`);
const device = values.device!;
const facts = inventoryFacts(values.inventory ?? process.env.DEVICE_INVENTORY)(device);
const verdict = evaluatePolicy(loaded, { alert: { alert_def_id: alertDefId, device, severity, vars }, device: { name: device, ...facts }, lines: values.line ?? [], at });
console.log(`${verdict.kind.toUpperCase()} by ${verdict.rule} at ${at.toISOString()}: ${verdict.reason}${verdict.kind === 'escalate' && verdict.owner ? ` (owner: ${verdict.owner})` : ''}`);
console.log(`policy ${loaded.file} sha256 ${loaded.sha256}`);
