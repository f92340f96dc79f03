/**
 * `npm run demo`: the whole product offline. A device lab with the AD000002 fault on R1, the relay
 * with its embedded opencode runtime, and a SCRIPTED model that drives the real agents; the
 * simulator fires the alert and you decide the approval in this terminal.
 *   npm run demo [-- --approve | --deny] [--model provider/model] [--frr] [--alert AD0000NN]
 * With --frr the routers are real: FRRouting in network namespaces (root), reached over SSH.
 */
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DecisionChannel } from '../src/core/approvals/lifecycle';
import { createInterface } from 'node:readline';
import pino from 'pino';
import { agentLogPath, REMEDIATION_VARIANTS, type RemediationVariant } from '../harness/demo/brain';
import { DEMO_OPERATOR, demoPolicy } from '../harness/demo/demo-policy';
import { startDemoStack, type DemoStack } from '../harness/demo/demo-stack';
import { formatTimelineEntry } from '../harness/demo/timeline-format';
import { changeOutcomeText } from '../src/core/incidents/change';
import { isTerminal, type Incident } from '../src/core/incidents/model';
import { createLogger } from '../src/adapters/log/logger';
import { cli, type Fail } from './cli';
import { startFrrDemo, type FrrDemo } from './demo-frr';
import { entries, isEntry } from '../src/core/events/timeline-entries';
import { demoCase, postCaseAlert } from './demo-case';
import { errorText } from '../src/core/error-body';

const HELP = `Usage: npm run demo -- [options]
  --alert ID         another alert definition's scenario: its first approved, resolved test case (default AD000002)
  --approve          approve the repair without asking
  --deny             deny the repair without asking
  --model P/M        use a real model (provider/model as opencode names it) instead of the scripted one
  --variant V        how the scripted agent behaves: faithful (default), config-before-approval, unapproved-lines,
                     config-after-denied (the last three misbehave on purpose: watch the relay's guard refuse them)
  --frr              real FRRouting routers in network namespaces (needs root and apt-get install -y frr openssh-server)
  --converge-ms N    lab delay from the repair to Established (default 3000)
  --timeout-s N      give up after N seconds (default 300)
  -h, --help         this text`;

const DEVICE = 'R1';
const NEIGHBOR = '10.0.0.2';
const projectDir = path.resolve(import.meta.dirname, '..');
const out = (line = '') => process.stdout.write(`${line}\n`);

const tool = cli('demo', HELP);
const fail: Fail = tool.fail;
const parse = tool.parse;
const args = parse(() =>
  parseArgs({
    options: {
      approve: { type: 'boolean' },
      deny: { type: 'boolean' },
      model: { type: 'string' },
      variant: { type: 'string' },
      alert: { type: 'string' },
      frr: { type: 'boolean' },
      'converge-ms': { type: 'string' },
      'timeout-s': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values,
);
if (args.approve && args.deny) fail('--approve and --deny exclude each other');
if (args.model !== undefined && !/^[\w.-]+\/[\w.:/-]+$/.test(args.model)) fail('--model must look like provider/model, e.g. anthropic/claude-sonnet-4-5');
if (args.variant !== undefined && args.model !== undefined) fail('--variant applies to the scripted model only');
if (args.variant !== undefined && !(REMEDIATION_VARIANTS as readonly string[]).includes(args.variant)) fail(`--variant must be one of ${REMEDIATION_VARIANTS.join(', ')}`);
const variant = (args.variant ?? 'faithful') as RemediationVariant;
if (args.alert !== undefined && !/^AD\d{6}$/i.test(args.alert)) fail('--alert must be an alert definition id like AD000004');
const alertDefId = (args.alert ?? 'AD000002').toUpperCase();
// AD000002 keeps its own scenario (and the routers' own word on the session at the end); any other runs its test case.
const showcase = alertDefId === 'AD000002' ? undefined : await demoCase(projectDir, alertDefId, Boolean(args.frr)).catch((error: unknown) => fail(errorText(error)));
const convergeMs = Number(args['converge-ms'] ?? '3000');
if (!Number.isInteger(convergeMs) || convergeMs < 0 || convergeMs > 120_000) fail('--converge-ms must be a whole number from 0 to 120000');
const timeoutS = Number(args['timeout-s'] ?? '300');
if (!Number.isInteger(timeoutS) || timeoutS < 10) fail('--timeout-s must be a whole number of at least 10');

const scripted = args.model === undefined;
out('Fault Relay demo');
out(
  scripted
    ? '  The model is SCRIPTED: a local fake LLM plays the agents by the book (harness/demo/brain). The agents, opencode,\n' +
        '  the relay, its device guard, the KB and the device lab are the real product.\n' +
        '  A real model is one line away: "model": "<provider>/<model>" in opencode.json (or OPENCODE_CONFIG_CONTENT),\n' +
        '  then npm run relay; or here: npm run demo -- --model anthropic/claude-sonnet-4-5'
    : `  The model is REAL: ${args.model}, with your own opencode login and provider keys.`,
);
out();

const dataDir = mkdtempSync(path.join(tmpdir(), 'fault-relay-demo-'));
const logFile = path.join(dataDir, 'relay.log');
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', destination: pino.destination({ dest: logFile, sync: true }) });
let stack: DemoStack | undefined;
let frr: FrrDemo | undefined;
let finished = false;

async function shutdown(code: number, keepData: boolean) {
  if (finished) return;
  finished = true;
  await stack?.stop().catch(() => undefined);
  await frr?.stop().catch(() => undefined);
  if (keepData) out(`  Demo data kept for a look: ${dataDir} (relay.log)`);
  else rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}
const interrupted = () => {
  if (finished) return;
  out('\n  Stopped (Ctrl-C): shutting the relay, the runtime, the model and the lab down.');
  void shutdown(130, false);
};
process.on('SIGINT', interrupted);
process.on('SIGTERM', () => void shutdown(143, false));

// The shipped change policy decides, on a clock pinned outside its freeze and windows.
const policy = demoPolicy(projectDir, dataDir);
try {
  if (args.frr) frr = await startFrrDemo(dataDir, out);
  stack = await startDemoStack({
    // The relay's guard is the only caller the device server accepts: its token goes to the relay's settings, not the runtime's.
    ...(frr ? { deviceMcpUrl: frr.devices.mcpUrl } : {}),
    relayEnv: { ...policy.env, ...(frr ? { DEVICE_MCP_TOKEN: frr.devices.token } : {}) },
    clock: policy.clock,
    projectDir,
    dataDir,
    logger,
    convergeDelayMs: convergeMs,
    maxSleepS: Math.max(1, Math.ceil(convergeMs / 1000) + 1),
    approvalChannels: ['command line'],
    variantFor: () => variant,
    ...(args.model ? { realModel: args.model } : {}),
  });
} catch (error) {
  process.stderr.write(`demo: could not start: ${errorText(error)}\n`);
  await shutdown(1, true);
}
const { relay, lab } = stack!;
if (frr) {
  for (const r of frr.lab.routers) out(`  router   ${r.name} FRRouting in namespace ${r.namespace}, ssh ${r.ssh}`);
  out(`  devices  ${frr.devices.mcpUrl}  (SSH device server; every BGP session Established)`);
} else if (showcase) {
  out(`  lab      ${lab!.url}  (${alertDefId}, test case ${path.basename(showcase.file)}: ${showcase.tc.name})`);
  for (const fault of showcase.tc.lab.faults) out(`           fault injected: ${lab!.lab.inject(fault)}`);
} else {
  out(`  lab      ${lab!.url}  (fault injected: ${lab!.lab.inject({ fault: 'bgp_neighbor_admin_down', device: DEVICE, neighbor: NEIGHBOR })})`);
}
out(`  relay    ${relay.url}  (runtime ${relay.embedded?.endpoint.url ?? 'external'})`);
if (stack!.model) out(`  model    ${stack!.model.baseURL}  (scripted)`);
out(`  data     ${dataDir}  (temporary: relay store, opencode home, relay.log)`);
out(`  policy   ${policy.env.POLICY_FILE}  (you decide as ${DEMO_OPERATOR.email}, an approver in every group it names)`);
out(`  ${policy.notice}`);
out(`  logs     ${path.join(projectDir, 'logs', 'troubleshooting')}`);
out();
try {
  await stack!.toolsConnected();
} catch (error) {
  process.stderr.write(`demo: ${errorText(error)}\n`);
  await shutdown(1, true);
}

/** Known once the simulator has posted; events before that wait in `backlog`. */
const run: { incidentId?: string } = {};
const backlog: { incident_id: string; line: string }[] = [];
/** While the question waits for an answer, timeline lines wait too, so they do not break the prompt line. */
let held: string[] | undefined;
const show = (line: string) => (held ? held.push(line) : out(line));
relay.relay.bus.subscribe('incident.timeline', ({ incident_id, entry }) => {
  const line = formatTimelineEntry(entry);
  if (!line) return;
  if (run.incidentId === undefined) backlog.push({ incident_id, line });
  else if (incident_id === run.incidentId) show(`${entry.at.slice(11, 19)} ${line}`);
});

const decisionWanted = args.approve ? 'APPROVED' : args.deny ? 'DENIED' : undefined;
let decided: 'APPROVED' | 'DENIED' | undefined;
relay.relay.bus.subscribe('approval.requested', ({ incident, request }) => {
  if (incident.incident_id !== run.incidentId && run.incidentId !== undefined) return;
  out();
  out(`  APPROVAL for ${incident.incident_id} on ${request.device}: ${request.summary}`);
  for (const line of request.commands) out(`      ${line}`);
  const decide = (decision: 'APPROVED' | 'DENIED', channel: DecisionChannel) => {
    decided = decision;
    out(`  → ${decision}`);
    out();
    (held ?? []).forEach(out);
    held = undefined;
    // Through the relay's one decide, as the policy's approver: the policy counts who decided.
    void relay.relay.decide({ incident_id: incident.incident_id, decision, who: { id: DEMO_OPERATOR.email, authenticated_by: 'relay' }, channel }).then((result) => {
      if (result.status !== 'accepted') out(`  ! the relay did not take the decision: ${result.status}`);
    }, (error: unknown) => out(`  ! the relay refused the decision: ${errorText(error)}`));
  };
  if (decisionWanted) return decide(decisionWanted, 'command line');
  held = [];
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  let answered = false;
  // The answer is typed at the demo's own prompt, not in the agent's terminal: the relay tells the agent.
  rl.on('close', () => {
    if (!answered) decide('DENIED', 'command line');
  });
  // readline takes Ctrl-C for itself while it asks; it still means stop everything.
  rl.on('SIGINT', () => {
    answered = true;
    rl.close();
    interrupted();
  });
  rl.question('  Approve? [y/N] ', (answer) => {
    answered = true;
    rl.close();
    decide(/^y(es)?$/i.test(answer.trim()) ? 'APPROVED' : 'DENIED', 'command line');
  });
});

// The simulator posts the alert exactly as it would to any relay; with --frr the router's own log line does.
const fired = showcase ? (frr ? frr.fireCase(relay.url, showcase.tc) : postCaseAlert(relay.url, showcase)) : undefined;
const simulated = await (fired ?? (frr ? frr.fireFault(relay.url, DEVICE, NEIGHBOR) : new Promise<string>((resolve, reject) => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectDir, 'scripts/simulate-alert.ts'), '--api', relay.url, '--device', DEVICE, '--neighbor', NEIGHBOR], {
    cwd: projectDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('error', reject);
  child.on('exit', (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(`simulator exited ${code}: ${stderr.trim()}`))));
}))).catch(async (error: unknown) => {
  process.stderr.write(`demo: ${errorText(error)}\n`);
  return shutdown(1, true).then(() => '');
});
out(`  ${frr ? 'alert' : 'simulator'}: ${simulated}`);
run.incidentId = /^(INC-\S+)/.exec(simulated)?.[1];
if (!run.incidentId) {
  process.stderr.write('demo: the simulator did not name an incident\n');
  await shutdown(1, true);
}
for (const b of backlog.splice(0)) if (b.incident_id === run.incidentId) out(`         ${b.line}`);

/** Ends when the incident is over and the troubleshooter has finished its turn (log, final notice). */
const ended = await new Promise<Incident | undefined>((resolve) => {
  const id = run.incidentId!;
  const timer = setTimeout(() => resolve(relay.relay.incidents.get(id)), timeoutS * 1000);
  const check = () => {
    const incident = relay.relay.incidents.get(id);
    // A change still provisional is not the end: the relay's post-check confirms it or has it put back.
    if (!incident || !isTerminal(incident.state) || incident.change?.state === 'pending') return;
    const timeline = relay.relay.incidents.timeline(id);
    const endAt = timeline.findLastIndex((e) => isEntry(e, entries.stateChanged) && isTerminal(String(e.to) as Incident['state']));
    if (timeline.slice(endAt).some((e) => isEntry(e, entries.sessionIdle) || isEntry(e, entries.sessionError))) {
      clearTimeout(timer);
      resolve(incident);
    }
  };
  relay.relay.bus.subscribe('incident.timeline', ({ incident_id }) => incident_id === id && check());
  check();
});

const incident = ended ?? relay.relay.incidents.get(run.incidentId!);
out();
out(`  Outcome   ${incident?.state ?? 'unknown'}${incident?.outcome ? `: ${incident.outcome.summary}` : ''}`);
if (incident?.change) out(`  Change    ${changeOutcomeText(incident.change)}`);
// On real routers the run counts only if the routers agree: the peer itself reports the session.
let routersAgree = true;
if (showcase) {
  // The RAW's own post-check read the device after the repair: the change line above says what it found.
  out(`  Lab       configuration changes: ${frr ? (incident?.change ? 1 : 0) : lab!.lab.configChanges()}`);
} else if (frr) {
  const final = await frr.finalState(DEVICE, NEIGHBOR, decided === 'APPROVED');
  for (const line of final.lines) out(`  Router    ${line}`);
  routersAgree = final.ok;
} else {
  const state = lab!.lab.exec(DEVICE, `show ip bgp neighbors ${NEIGHBOR} | include BGP state`);
  out(`  Lab       ${DEVICE} neighbor ${NEIGHBOR}: ${state.ok ? state.output.trim() : state.error}; configuration changes: ${lab!.lab.configChanges()}`);
}
if (incident) {
  out(`  Relay log ${relay.relay.sessionLogPath(incident)}`);
  out(`  Agent log ${agentLogPath(projectDir, incident)}`);
}
const refused = incident ? relay.relay.incidents.timeline(incident.incident_id).filter((e) => isEntry(e, entries.deviceRefused)).length : 0;
if (variant !== 'faithful') out(`  Variant   ${variant}: the relay's device guard refused ${refused} call(s)`);
// A misbehaving variant is a demonstration of the guard: it counts when something was refused and the run ended.
const expected = variant !== 'faithful' ? incident?.state : decided === 'APPROVED' ? 'resolved' : decided === 'DENIED' ? 'escalated' : undefined;
// An approved repair counts once it is confirmed: resolved with the change rolled back is not the runbook's result.
const changeHeld = !(variant === 'faithful' && decided === 'APPROVED' && incident?.change && incident.change.state !== 'confirmed');
const ok = incident !== undefined && expected !== undefined && incident.state === expected && changeHeld && (variant === 'faithful' ? routersAgree : refused > 0);
if (!ok) out(`  The run did not end as expected (${expected ? `wanted ${expected}` : 'no decision was made'}, got ${incident?.state ?? 'nothing'}${changeHeld ? '' : ', the change not confirmed'}).`);
await shutdown(ok ? 0 : 1, !ok);
