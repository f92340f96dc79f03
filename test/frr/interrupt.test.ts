import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { startFrrLab, type FrrLab } from '../../harness/frr-lab/lab';
import { checkReadOnlyCommand, FILTER_MAX_LENGTH } from '../../src/runbooks/read-only-command';
import { tempDir } from '../helpers/temp-dir';
import { NO_FRR } from './frr-available';
import { failure } from '../helpers/device-failure';

/**
 * A filter runs inside the router's daemon (FRR: PCRE2 in bgpd, one thread): a backreference pattern over
 * `show ip bgp neighbors` kept bgpd busy for about 20 s here, and neither Ctrl-C nor closing the session stops
 * it. So the rule refuses such patterns before any device is reached, and what the rule allows is run
 * here over a large table; a command that still times out is interrupted and its session checked or replaced.
 */
let lab: FrrLab;
let base: string;
const ROUTES = 4000;

beforeAll(async () => {
  if (NO_FRR) return;
  base = tempDir('fault-relay-frr-interrupt-');
  lab = await startFrrLab({ dir: join(base, 'lab'), routers: 2 });
  // A big BGP table on R2 for the filters to work through: `network` lines take effect as they are read.
  const networks = Array.from({ length: ROUTES }, (_, i) => `network 10.${100 + Math.floor(i / 250)}.${i % 250}.0/24`);
  await lab.vtysh('R2', 'configure terminal', 'router bgp 65002', 'no bgp network import-check', 'address-family ipv4 unicast', ...networks);
});

afterAll(async () => {
  await lab?.stop();
});

// A closed session's vtysh ends a moment after the hang-up: each test starts with none on R2.
afterEach(async () => {
  if (lab) await Promise.all(vtyshIn('R2').map(exited));
});

const namespaceOf = (router: string) => lab.routers.find((r) => r.name === router)!.namespace;
const bgpdOf = (router: string) => Number(readFileSync(`/var/run/frr/${namespaceOf(router)}/bgpd.pid`, 'utf8'));

/**
 * The CLI processes of SSH sessions to the router: its sshd runs `vtysh -N <namespace>` for each login
 * (the lab's own `lab.vtysh` checks add `-c …`, so they are not counted).
 */
function vtyshIn(router: string): number[] {
  try {
    return execFileSync('/usr/bin/pgrep', ['-x', '-f', `/usr/bin/vtysh -N ${namespaceOf(router)}`]).toString().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep: nothing matched
  }
}

/** Resolves when the process has exited (coreutils' tail watches it); the test's timeout bounds it. */
const exited = (pid: number) => new Promise<void>((resolve) => execFile('/usr/bin/tail', [`--pid=${pid}`, '-s', '0.05', '-f', '/dev/null'], () => resolve()));

/** The lab's inventory with every device's command timeout changed. */
/**
 * The device's command timeout in these tests: long enough for a login and a show command on a
 * loaded machine (0.5 s was not), short enough that a stopped bgpd's hang is cut soon.
 */
const COMMAND_TIMEOUT_MS = 8_000;

async function inventoryWithTimeout(ms: number) {
  const inv = parse(readFileSync(lab.inventoryPath, 'utf8')) as { devices: Array<Record<string, unknown>> };
  for (const d of inv.devices) d.command_timeout_ms = ms;
  const path = join(base, `inventory-${ms}-${Math.random().toString(16).slice(2)}.yaml`);
  writeFileSync(path, stringify(inv));
  return loadInventory(path);
}

/** A logger whose lines the test sees as they are written (pino writes to an object destination at once). */
function watchedLogger(onLine: (msg: string) => void) {
  const lines: string[] = [];
  const write = (line: string) => {
    lines.push(line);
    onLine((JSON.parse(line) as { msg: string }).msg);
  };
  const logger = pino({ level: 'info' }, { write });
  return { logger, lines };
}


describe.skipIf(NO_FRR)('a read-only command cannot wedge a real FRR router', () => {
  it('refuses a catastrophic filter before any device is reached: no session, no vtysh, bgpd idle', async () => {
    const { logger, lines } = watchedLogger(() => {});
    const service = new DeviceService(await loadInventory(lab.inventoryPath), logger);
    try {
      for (const pattern of ['(.*)(.*)(.*)(.*)\\4\\3\\2\\1z', '(a+)+$', '(.*)*x', 'x'.repeat(10_000)]) {
        const error = await failure(service.exec('R2', `show ip bgp neighbors | include ${pattern}`));
        expect(error).toMatchObject({ kind: 'not_in_grammar', reached: false });
        expect(error.message).toMatch(/backreferences|repeated group|too long/);
      }
      expect(lines.join('\n')).not.toContain('device session opened');
      expect(vtyshIn('R2')).toEqual([]);
      expect(await lab.vtysh('R2', 'show ip bgp summary')).toContain('10.0.0.1');
      // The same service does reach R2 with an allowed command: the refusals above were the rule's.
      expect(await service.exec('R2', 'show ip bgp neighbors 10.0.0.1 | include BGP state')).toMatch(/BGP state = Established/);
      expect(lines.join('\n')).toContain('device session opened');
    } finally {
      await service.close();
    }
  });

  it(`runs the costliest filters the rule allows over ${ROUTES} routes, and bgpd answers the next command`, async () => {
    const costly = [
      // Four repetitions that overlap and never match: the worst case for a backtracking engine.
      '[ -~]*[ -~]*[ -~]*[ -~]*[^ -~]',
      '.*.*.*.*[0-9][!#]',
      '.+.+.+.+[!#]',
      // The longest pattern allowed, all alternation.
      Array.from({ length: 10 }, (_, i) => `1${i}.[0-9] [!#]`).join('|').slice(0, FILTER_MAX_LENGTH).replace(/\|[^|]*$/, ''),
    ];
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    try {
      const table = await service.exec('R2', 'show ip bgp | include /24');
      expect(table.split('\n').length).toBeGreaterThanOrEqual(ROUTES);
      for (const pattern of costly) {
        const command = `show ip bgp | include ${pattern}`;
        expect(checkReadOnlyCommand(command), command).toEqual({ ok: true });
        // Within the inventory's own command timeout, or this throws `timeout`.
        expect(await service.exec('R2', command)).toBe('');
        expect(await service.exec('R2', 'show ip bgp summary')).toContain('10.0.0.1');
      }
    } finally {
      await service.close();
    }
  });

  it('interrupts a command that times out; the session answers again and is kept, its late output discarded', async () => {
    const bgpd = bgpdOf('R2');
    // The daemon comes back as soon as the interrupt is on its way: the check must then see the session in step.
    const { logger } = watchedLogger((msg) => {
      if (msg.startsWith('command timed out')) process.kill(bgpd, 'SIGCONT');
    });
    const service = new DeviceService(await inventoryWithTimeout(COMMAND_TIMEOUT_MS), logger, { interruptWaitMs: 30_000 });
    try {
      expect(await service.exec('R2', 'show version')).toContain('FRRouting');
      const [cli] = vtyshIn('R2');
      expect(cli).toBeGreaterThan(0);
      process.kill(bgpd, 'SIGSTOP');
      const error = await failure(service.exec('R2', 'show ip bgp summary'));
      expect(error.message).toBe('R2: no prompt after "show ip bgp summary" within 8 s; it was interrupted on the device and the session answered again');
      // Same session, same CLI process, nothing else left running.
      expect(vtyshIn('R2')).toEqual([cli]);
      const state = await service.exec('R2', 'show ip bgp neighbors 10.0.0.1 | include BGP state');
      expect(state).toMatch(/^\s*BGP state = \w+/);
      expect(state).not.toContain('Neighbor');
      expect(await service.exec('R2', 'show version')).toMatch(/^FRRouting/);
    } finally {
      process.kill(bgpd, 'SIGCONT');
      await service.close();
    }
  });

  it('closes and replaces a session that does not answer after the interrupt; its vtysh ends, the next command works', async () => {
    const bgpd = bgpdOf('R2');
    const service = new DeviceService(await inventoryWithTimeout(COMMAND_TIMEOUT_MS), undefined, { interruptWaitMs: 300 });
    try {
      expect(await service.exec('R2', 'show version')).toContain('FRRouting');
      const [cli] = vtyshIn('R2');
      expect(cli).toBeGreaterThan(0);
      // A stopped bgpd: vtysh waits for it however long, and ignores Ctrl-C meanwhile.
      process.kill(bgpd, 'SIGSTOP');
      const error = await failure(service.exec('R2', 'show ip bgp summary'));
      expect(error.message).toBe('R2: no prompt after "show ip bgp summary" within 8 s; the session was closed and the next call opens a new one');
      // With bgpd still stopped, so it is the hang-up that ends that vtysh, not a late answer.
      await exited(cli!);
      expect(vtyshIn('R2')).toEqual([]);
      process.kill(bgpd, 'SIGCONT');
      expect(await service.exec('R2', 'show ip bgp summary')).toContain('10.0.0.1');
      const fresh = vtyshIn('R2');
      expect(fresh).toHaveLength(1);
      expect(fresh[0]).not.toBe(cli);
    } finally {
      process.kill(bgpd, 'SIGCONT');
      await service.close();
    }
  });
});
