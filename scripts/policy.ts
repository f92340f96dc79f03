import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { evaluatePolicy } from '../src/policy/evaluate';
import { describeProblem, loadPolicy } from '../src/policy/load';

/**
 * `npm run policy -- check [file]`: validates a policy as the relay would load it.
 * `npm run policy -- explain --alert <file.json | k=v,k=v> --device R1 [--at <time>] [--file policy.yaml]`:
 * the verdict for that change and the rule that gave it, as a person checks a policy before trusting it.
 */
const [command, ...rest] = process.argv.slice(2);
const { values, positionals } = parseArgs({
  args: rest,
  allowPositionals: true,
  options: { alert: { type: 'string' }, device: { type: 'string' }, at: { type: 'string' }, file: { type: 'string' }, severity: { type: 'string' }, line: { type: 'string', multiple: true } },
});
const file = values.file ?? positionals[0] ?? process.env.POLICY_FILE ?? 'policy.yaml';
const load = loadPolicy(file);
if (!load.ok) {
  for (const p of load.problems) console.error(describeProblem(p));
  console.error(`${load.problems.length} problem${load.problems.length > 1 ? 's' : ''}: the relay would keep its last good policy, or refuse to start without one.`);
  process.exit(1);
}
const { loaded } = load;
if (command === 'check') {
  console.log(`${loaded.file}: ok, ${loaded.policy.classes.length} classes, ${loaded.policy.freezes.length} freezes, ${loaded.records.length} change records (sha256 ${loaded.sha256})`);
  process.exit(0);
}
if (command !== 'explain' || !values.alert || !values.device) {
  console.error('usage: npm run policy -- check [file] | explain --alert <file.json | alert_def_id=AD000002,neighbor_ip=10.0.0.2> --device R1 [--severity P1] [--at 2026-12-20T03:00Z] [--line "…"]');
  process.exit(2);
}
const fields: Record<string, string> = values.alert.includes('=')
  ? Object.fromEntries(values.alert.split(',').map((kv) => kv.split('=', 2) as [string, string]))
  : (JSON.parse(readFileSync(values.alert, 'utf8')) as Record<string, string>);
const { alert_def_id: alertDefId = '', severity = values.severity ?? '', ...vars } = fields;
const at = values.at ? new Date(values.at) : new Date();
if (Number.isNaN(at.getTime())) {
  console.error(`--at: "${values.at}" is not a time (use 2026-12-20T03:00Z)`);
  process.exit(2);
}
const verdict = evaluatePolicy(loaded, { alert: { alert_def_id: alertDefId, device: values.device, severity, vars }, device: { name: values.device }, lines: values.line ?? [], at });
console.log(`${verdict.kind.toUpperCase()} by ${verdict.rule} at ${at.toISOString()}: ${verdict.reason}${verdict.kind === 'escalate' && verdict.owner ? ` (owner: ${verdict.owner})` : ''}`);
console.log(`policy ${loaded.file} sha256 ${loaded.sha256}`);
