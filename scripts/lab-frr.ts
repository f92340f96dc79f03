/**
 * `npm run lab -- --frr …`: real FRRouting routers in network namespaces, the SSH device tool server
 * on top, and a watcher that turns their BGP log lines into Splunk alerts for the relay.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pino } from 'pino';
import { generateDeviceServerToken, startDeviceServer } from '../src/adapters/devices/server';
import { relayEnvLines, writeTokenFile } from '../src/adapters/devices/token-file';
import { frrLabUnavailable } from '../harness/frr-lab/host';
import { attachFrrLab, startFrrLab, stateFileIn, type FrrLabRouter } from '../harness/frr-lab/lab';
import { applyFrrFault, resetFrrLab } from '../harness/frr-lab/faults';
import { parseFaultSpec } from '../src/runbooks/fault-spec';
import { sweepAllLabs, teardownLab } from '../harness/frr-lab/teardown';
import { startWatcher } from '../harness/frr-lab/watcher';
import type { Fail } from './cli';
import { errorText } from '../src/core/error-body';

export interface FrrLabArgs {
  routers?: string;
  out?: string;
  down?: boolean;
  /** With --down: every FRR lab on this machine, even one whose state file is gone. */
  all?: boolean;
  /** With --down: this lab only (its id, frl1a2b), even one whose state file is gone. */
  lab?: string;
  relay?: string;
  secret?: string;
  port?: string | undefined;
  command?: string;
  device?: string;
  neighbor?: string;
  interface?: string;
  /** inject: the definition (AD000004) or fault kind to build; AD000002 without one. */
  fault?: string;
}

export const DEFAULT_FRR_OUT = '.lab/frr.json';
const labDirFor = (out: string) => join(dirname(resolve(out)), 'frr');
/** In the lab's own folder (0700), beside its state file: removed with the lab, by Ctrl-C or --down. */
const tokenFileFor = (out: string) => join(labDirFor(out), 'device-server.token');

export async function frrLabCli(args: FrrLabArgs, fail: Fail): Promise<void> {
  const out = args.out ?? DEFAULT_FRR_OUT;
  if (args.down) {
    if (args.lab !== undefined && !/^frl[0-9a-f]{4}$/.test(args.lab)) return fail(`--lab takes a lab id such as frl1a2b (the prefix of its namespaces), not ${JSON.stringify(args.lab)}`);
    const removed = args.all || args.lab ? await sweepAllLabs(args.lab) : await teardownLab(stateFileIn(labDirFor(out)));
    rmSync(out, { force: true });
    console.log(removed.length ? `FRR lab removed: ${removed.join(', ')}` : `no FRR lab was up${args.all ? '' : ' (recorded in ' + labDirFor(out) + '; --down --all sweeps every lab on this machine)'}; nothing to remove`);
    return;
  }
  if (args.command === 'inject' || args.command === 'clear') return faultCli(args, out, fail);
  const missing = frrLabUnavailable();
  if (missing) fail(missing, 1);
  const routers = Number(args.routers ?? 2);
  const port = Number(args.port ?? 4320);
  const started = Date.now();
  mkdirSync(dirname(resolve(out)), { recursive: true });
  const lab = await startFrrLab({ dir: labDirFor(out), routers, onStep: (line) => console.log(`  ${line}`) });
  // A relay started separately needs the server's bearer: it goes to a 0600 file, never to the terminal.
  const token = generateDeviceServerToken();
  const tokenFile = tokenFileFor(out);
  let devices;
  try {
    writeTokenFile(tokenFile, token);
  } catch (error) {
    await lab.stop();
    fail(`cannot write the device server's token to ${tokenFile}: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`, 1);
  }
  try {
    devices = await startDeviceServer({ inventoryPath: lab.inventoryPath, port, token, logger: pino({ level: process.env.LOG_LEVEL ?? 'warn' }) });
  } catch (error) {
    await lab.stop();
    fail(`device tool server could not listen on 127.0.0.1:${port} (${(error as NodeJS.ErrnoException).code ?? errorText(error)}); pass --port`, 1);
  }
  const summary = {
    device_mcp_url: devices.mcpUrl,
    device_mcp_token_file: tokenFile,
    inventory: lab.inventoryPath,
    known_hosts: lab.knownHostsPath,
    routers: lab.routers.map((r) => ({ name: r.name, namespace: r.namespace, ssh: r.ssh, log: r.logFile })),
    // What `inject` and `clear` (another process) need to build any definition's fault on these routers.
    plan: lab.routers,
  };
  writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(`FRR lab up in ${((Date.now() - started) / 1000).toFixed(1)} s, every BGP session Established`);
  for (const r of summary.routers) console.log(`  ${r.name.padEnd(4)} namespace ${r.namespace.padEnd(12)} ssh ${r.ssh}`);
  console.log(`  device tools (MCP): ${devices.mcpUrl}   (DEVICE_MCP_URL); bearer token in ${tokenFile} (0600)`);
  console.log(`  start a relay on them with: ${relayEnvLines(devices.mcpUrl, tokenFile).join(' ')} npm run relay`);
  console.log(`  inventory ${lab.inventoryPath}; written to ${out}`);
  const relay = args.relay ?? process.env.RELAY_URL;
  const secret = args.secret ?? process.env.WEBHOOK_SECRET;
  const watcher = startWatcher({
    routers: lab.routers,
    ...(relay ? { relayUrl: relay } : {}),
    ...(secret ? { webhookSecret: secret } : {}),
    onEvent: (e) => {
      console.log(`  [${e.router} log] ${e.change.raw}`);
      if (e.posted) console.log(`    → alert posted to ${relay}: ${e.posted.status} ${JSON.stringify(e.posted.body)}`);
      if (e.error) console.log(`    → ${e.error}`);
    },
    // Alerts of lines that are not adjacency changes (AD000004, AD000007): an adjacency alert is printed above.
    onAlert: (a) => {
      if (a.detection.raw.includes('%ADJCHANGE')) return;
      console.log(`  [${a.router} log] ${a.detection.raw}`);
      if (a.posted) console.log(`    → ${a.detection.alert_def_id} alert posted to ${relay}: ${a.posted.status} ${JSON.stringify(a.posted.body)}`);
      if (a.error) console.log(`    → ${a.error}`);
    },
  });
  console.log(relay ? `  watching the routers' logs; the faults of harness/frr-lab/detectors.ts are posted to ${relay}/fault-alert` : '  watching the routers\' logs (pass --relay URL to post alerts)');
  console.log('  Ctrl-C stops the lab and removes everything it made');
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    watcher.close();
    void devices
      .stop()
      .then(() => lab.stop())
      .then(() => {
        rmSync(out, { force: true });
        console.log('FRR lab stopped and removed');
        process.exit(0);
      });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * Builds a fault on a running FRR lab as real configuration, as a test case would (any definition the
 * lab reproduces: AD000002 … AD000009, or a fault kind), or clears every fault (`clear`: each session
 * and adjacency back up).
 */
async function faultCli(args: FrrLabArgs, out: string, fail: Fail): Promise<void> {
  if (!existsSync(out)) fail(`no FRR lab described at ${out}: start one with npm run lab -- --frr`, 1);
  const described = JSON.parse(readFileSync(out, 'utf8')) as { plan?: FrrLabRouter[] };
  if (!described.plan) fail(`${out} was written by an older lab: restart it with npm run lab -- --frr`, 1);
  const lab = attachFrrLab(described.plan);
  if (args.command === 'clear') {
    await resetFrrLab(lab);
    console.log('every fault cleared: each BGP session Established, no passive or shut interface, no wrong remote-as, no password, every link at its MTU');
    return;
  }
  let spec;
  try {
    spec = parseFaultSpec({ fault: args.fault ?? 'AD000002', device: args.device, ...(args.neighbor ? { neighbor: args.neighbor } : {}), ...(args.interface ? { interface: args.interface } : {}) });
  } catch (error) {
    return fail(`inject needs a fault the lab knows and its fields, e.g. inject AD000005 --device R1 --interface eth-R2: ${errorText(error).split('\n')[0]}`);
  }
  const cannot = await applyFrrFault(lab, spec);
  if (cannot) fail(cannot, 1);
  console.log(`${spec.device}: ${JSON.stringify(spec)} built; the router's own log line goes to the watcher`);
}
