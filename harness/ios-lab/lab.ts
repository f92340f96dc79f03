import { checkReadOnlyCommand } from '../../src/runbooks/read-only-command';
import type { Logger } from 'pino';
import type { SleepingClock } from '../../src/core/clock';
import { createLabChanges, type ChangeResult, type ProvisionalResult } from './changes';
import { realTimeClock } from '../raw-tests/clock';
import { parseCommand, splitPipe } from './cli-parser';
import { applyConfigLines } from './config-mode';
import { Network, type Device } from './device';
import { execGrammar } from './exec-commands';
import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { logOspfChanges, ospfAdjacencies } from './ospf';
import type { Inventory } from './inventory';
import { SeenConfigs } from '../../src/adapters/devices/config-fingerprint';
import { isRefusal, LabError, refusal, type LabRefusal } from './refusal';
import { injectFault } from './inject';

export type CliResult = { ok: true; output: string } | LabRefusal;

export interface LabOptions {
  inventory: Inventory;
  clock?: SleepingClock;
  /** From `no neighbor … shutdown` to Established; a few seconds on real routers. */
  convergeDelayMs?: number;
  /** From `no shutdown` to line protocol up. */
  linkDelayMs?: number;
  logger?: Logger;
}

export interface Lab {
  readonly clock: SleepingClock;
  /** Runs one read-only show command. */
  exec(device: string, command: string): CliResult;
  /** Applies configuration lines atomically: all of them or, on the first rejected line, none. */
  config(device: string, lines: readonly string[], by?: { user: string; from: string }): CliResult;
  /** Applies lines as config does, provisionally: rolled back unless confirmed within `confirmWithinS` of the lab's clock. */
  configProvisional(device: string, lines: readonly string[], confirmWithinS: number, expectConfigSha256?: string): ProvisionalResult;
  confirmChange(device: string, changeId: string): ChangeResult;
  /** Idempotent for a change already rolled back. */
  rollbackChange(device: string, changeId: string, reason: string): ChangeResult;
  changeStatus(device: string, changeId: string): ChangeResult;
  inject(fault: FaultSpec): string;
  /** Clears injected faults that are not configuration (peer, link, reachability); config stays as it is. */
  clearFaults(device?: string): void;
  /** Back to the inventory: configuration, sessions and logs. */
  reset(): void;
  devices(): { hostname: string; mgmt_ip: string }[];
  /** Successful configuration changes since start or reset, for tests that must prove nothing changed. */
  configChanges(): number;
  /** Network state for inspection; not a public contract. */
  network(): Network;
  /** The configurations previews read, so a change refused because the device changed since can say what changed. */
  readonly previewed: SeenConfigs;
  close(): void;
}

export { LabError };

export const DEFAULT_CONVERGE_DELAY_MS = 4000;
export const DEFAULT_LINK_DELAY_MS = 2000;

const READ_ONLY_HINT = '% exec_cli runs read-only show commands; configuration goes through config_cli';
const EXEC_VERBS = /^(conf|configure|clear|reload|copy|write|debug|undebug|delete|erase|format|request|install|license|no)\b/i;

export function createLab(opts: LabOptions): Lab {
  const clock = opts.clock ?? realTimeClock();
  const timing = {
    convergeDelayMs: opts.convergeDelayMs ?? DEFAULT_CONVERGE_DELAY_MS,
    linkDelayMs: opts.linkDelayMs ?? DEFAULT_LINK_DELAY_MS,
  };
  const log = opts.logger;
  let net = new Network(opts.inventory.devices, clock, timing);
  let changes = 0;

  const known = () => [...net.devices.values()].map((d) => d.config.hostname).join(', ');

  const reach = (hostname: string): Device | LabRefusal => {
    const device = net.find(hostname.trim());
    if (!device) return refusal('unknown_device', `% Unknown host "${hostname}": not in the device inventory (known: ${known()})`);
    if (device.faults.unreachable) {
      return refusal('unreachable', `% Connection timed out; remote host not responding: ${device.config.hostname} (${device.inventory.mgmt_ip}) port 22`);
    }
    return device;
  };

  const deviceFor = (hostname: string): Device => {
    const d = net.find(hostname);
    if (!d) throw new LabError(`unknown device "${hostname}" (known: ${known()})`);
    return d;
  };

  const recordChange = (device: Device, by: { user: string; from: string }) => {
    device.lastChange = { at: clock.now().getTime(), by: by.user };
    net.log(device, `%SYS-5-CONFIG_I: Configured from console by ${by.user} on vty0 (${by.from})`);
  };

  let lab: Lab;
  const previewed = new SeenConfigs();
  const provisional = createLabChanges({
    previewed,
    clock,
    reach,
    apply: (hostname, lines) => lab.config(hostname, lines),
    restore(device, config) {
      device.config = config;
      recordChange(device, { user: 'automation', from: '192.0.2.250' });
      net.reconcile();
    },
    logger: log,
  });

  return (lab = {
    clock,
    previewed,
    configProvisional: (hostname, lines, s, expect) => provisional.provisional(hostname, lines, s, expect),
    confirmChange: (hostname, id) => provisional.confirm(hostname, id),
    rollbackChange: (hostname, id, reason) => provisional.rollback(hostname, id, reason),
    changeStatus: (hostname, id) => provisional.status(hostname, id),
    exec(hostname, command) {
      const device = reach(hostname);
      if (isRefusal(device)) return device;
      return execOn(net, device, command, clock.now().getTime());
    },

    config(hostname, lines, by = { user: 'automation', from: '192.0.2.250' }) {
      const device = reach(hostname);
      if (isRefusal(device)) return device;
      if (lines.length === 0) return refusal('not_in_grammar', '% No configuration lines given');
      if (lines.some((l) => /[\r\n]/.test(l))) return refusal('not_in_grammar', '% One command per line: a line contains a line break');
      const draft = structuredClone(device.config);
      const result = applyConfigLines(draft, lines);
      if (!result.ok) {
        log?.info({ device: device.config.hostname, error: result.error }, 'lab config rejected');
        return refusal('rejected', `${result.transcript}\n% No changes were applied.`);
      }
      const ospfBefore = ospfAdjacencies(net);
      device.config = draft;
      changes += 1;
      recordChange(device, by);
      net.reconcile();
      logOspfChanges(net, ospfBefore);
      log?.info({ device: device.config.hostname, lines }, 'lab config applied');
      return { ok: true, output: result.transcript };
    },

    inject(fault) {
      const device = deviceFor(fault.device);
      const what = injectFault(net, device, fault, () => recordChange(device, { user: 'netops', from: '192.0.2.50' }));
      net.reconcile();
      log?.info({ fault }, `lab fault injected: ${what}`);
      return what;
    },

    clearFaults(hostname) {
      const targets = hostname ? [deviceFor(hostname)] : [...net.devices.values()];
      for (const d of targets) {
        d.faults.unreachable = false;
        d.faults.peerUnreachable.clear();
        d.faults.linkDown.clear();
        d.faults.largeDatabase = false;
      }
      net.reconcile();
    },

    reset() {
      provisional.clear();
      closeTimers(net);
      net = new Network(opts.inventory.devices, clock, timing);
      changes = 0;
    },

    devices: () => [...net.devices.values()].map((d) => ({ hostname: d.config.hostname, mgmt_ip: d.inventory.mgmt_ip })),
    configChanges: () => changes,
    network: () => net,
    close: () => {
      provisional.clear();
      closeTimers(net);
    },
  });
}

/** One read-only command on a reachable device, as IOS-XE would answer it. */
function execOn(net: Network, device: Device, command: string, now: number): CliResult {
  const line = command.replace(/\s+$/, '');
  if (line.trim() === '') return refusal('not_in_grammar', '% Incomplete command.');
  if (/[\r\n]/.test(line)) return refusal('not_in_grammar', '% One command per call: the command contains a line break');
  if (EXEC_VERBS.test(line.trim())) return refusal('not_in_grammar', READ_ONLY_HINT);
  // The same definition of read-only as the relay's guard and the validator: a lab that ran
  // more than a real router's show would hide a hole in the guard.
  const readOnly = checkReadOnlyCommand(line);
  if (!readOnly.ok) return refusal('not_in_grammar', `% ${readOnly.reason}`);
  const pipe = splitPipe(line);
  if (pipe.error) return refusal('not_in_grammar', pipe.error);
  const parsed = parseCommand(execGrammar(device, now, net), pipe.command, {
    interfaces: device.config.interfaces.map((i) => i.name),
  });
  if (!parsed.ok) {
    // Keep the caret aligned with the full line the caller typed.
    return refusal('rejected', parsed.error.replace(pipe.command, line));
  }
  // Output such as "% No such neighbor or address family" is what the command printed, not a tool failure.
  // IOS prints such messages whatever the output filter says.
  const output = parsed.run();
  return { ok: true, output: pipe.filter && !output.startsWith('% ') ? pipe.filter(output) : output };
}

function closeTimers(net: Network): void {
  for (const d of net.devices.values()) {
    for (const op of d.neighbors.values()) op.pending?.cancel();
    for (const op of d.interfaces.values()) op.pending?.cancel();
  }
}
