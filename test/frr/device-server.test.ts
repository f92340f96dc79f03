import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import type { RunningDeviceServer } from '../../src/adapters/devices/server';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { connectMcp } from '../helpers/mcp-client';
import { repoRoot } from '../helpers/opencode';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { NO_FRR } from './frr-available';
import { frrLabForFile } from './lab-for-test';
import { failure } from '../helpers/device-failure';

let lab: FrrLab;
let server: RunningDeviceServer;
let mcp: Awaited<ReturnType<typeof connectMcp>>;
let base: string;

frrLabForFile({ name: 'frr', deviceServer: {} }, async (shared) => {
  ({ lab, base } = shared);
  server = shared.server!;
  mcp = await connectMcp(server.mcpUrl, server.token);
});
afterAll(async () => {
  await mcp?.close();
});

const runningBgp = () => lab.vtysh('R1', 'show running-config bgpd');

/** A variant of the lab's inventory, written beside it. */
async function inventoryWith(change: (inv: { known_hosts: string; devices: Array<Record<string, unknown>> }) => void) {
  const inv = parse(readFileSync(lab.inventoryPath, 'utf8'));
  change(inv);
  const path = join(base, `inventory-${Math.random().toString(16).slice(2)}.yaml`);
  writeFileSync(path, stringify(inv));
  return loadInventory(path);
}


describe.skipIf(NO_FRR)('the SSH device tool server on real FRR routers', () => {
  it('runs a show command over SSH and returns FRR\'s own output', async () => {
    const r = await mcp.call('exec_cli', { device: 'R1', command: 'show ip bgp neighbors 10.0.0.2 | include BGP state' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/BGP state = Established/);
    const version = await mcp.call('exec_cli', { device: 'R2', command: 'show version' });
    expect(version.text).toMatch(/FRRouting 8\.\d+\.\d+ \(R2\)/);
  });

  it('refuses what is not in the platform\'s grammar before sending it, and reports what the router refused', async () => {
    const section = await mcp.call('exec_cli', { device: 'R1', command: 'show running-config | section router bgp' });
    expect(section.isError).toBe(true);
    expect(section.text).toContain('[not_in_grammar]');
    expect(section.text).toContain('show running-config bgpd');
    const bogus = await mcp.call('exec_cli', { device: 'R1', command: 'show bogus-table' });
    expect(bogus).toMatchObject({ isError: true });
    expect(bogus.text).toMatch(/\[rejected\] R1 did not accept "show bogus-table": % Unknown command/);
    const write = await mcp.call('exec_cli', { device: 'R1', command: 'configure terminal' });
    expect(write.text).toContain('[not_in_grammar]');
    const unknown = await mcp.call('exec_cli', { device: 'R9', command: 'show version' });
    expect(unknown.text).toMatch(/\[unknown_device\] unknown device "R9": the inventory has R1, R2/);
  });

  it('takes a device name in any case and with surrounding space, always as the inventory\'s router, never another', async () => {
    const r = await mcp.call('exec_cli', { device: ' r2 ', command: 'show version' });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/FRRouting 8\.\d+\.\d+ \(R2\)/);
    const change = await mcp.call('config_cli', { device: 'r1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 description via-lowercase'] });
    expect(change).toMatchObject({ isError: false });
    expect(change.text).toMatch(/^R1: 2 line\(s\) applied/);
    expect(await runningBgp()).toContain('neighbor 10.0.0.2 description via-lowercase');
    expect(await lab.vtysh('R2', 'show running-config bgpd')).not.toContain('via-lowercase');
    // Unknown: refused as unknown_device, the kind the relay reads as "nothing was sent".
    const unknown = await mcp.call('config_cli', { device: 'r1x', commands: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] });
    expect(unknown.text).toMatch(/^\[unknown_device\] unknown device "r1x": the inventory has R1, R2$/);
  });

  it('applies a change whole, and a change with a refused line not at all: rolled back, and the running config proves it', async () => {
    const ok = await mcp.call('config_cli', { device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 description to-R2'] });
    expect(ok).toMatchObject({ isError: false });
    expect(await runningBgp()).toContain('neighbor 10.0.0.2 description to-R2');

    const before = await runningBgp();
    const bad = await mcp.call('config_cli', {
      device: 'R1',
      commands: ['router bgp 65001', 'neighbor 10.0.0.2 description changed', 'neighbor 10.0.0.2 shutdown', 'neighbor 10.0.0.99 timers connect 5'],
    });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('refused line 4 of 4 "neighbor 10.0.0.99 timers connect 5": % Specify remote-as or peer-group commands first');
    expect(bad.text).toContain('Rolled back: the running configuration was read back and matches');
    expect(await runningBgp()).toBe(before);
    expect(await lab.vtysh('R1', 'show ip bgp neighbors 10.0.0.2')).not.toMatch(/Administratively shut down/);
  });

  it('runs calls to one router one at a time, so two changes never interleave', async () => {
    const a = ['router bgp 65001', 'neighbor 10.0.0.2 description run-a', 'neighbor 10.0.0.2 advertisement-interval 5'];
    const b = ['router bgp 65001', 'neighbor 10.0.0.2 description run-b', 'neighbor 10.0.0.2 advertisement-interval 7'];
    const [ra, rb] = await Promise.all([mcp.call('config_cli', { device: 'R1', commands: a }), mcp.call('config_cli', { device: 'R1', commands: b })]);
    expect([ra.isError, rb.isError]).toEqual([false, false]);
    const config = await runningBgp();
    // Whichever ran last won both of its lines: no mix of one run's description with the other's interval.
    const pair = [/description (run-\w)/.exec(config)?.[1], /advertisement-interval (\d)/.exec(config)?.[1]];
    expect([['run-a', '5'], ['run-b', '7']]).toContainEqual(pair);
  });

  it('reconnects after the SSH session drops', async () => {
    await mcp.call('exec_cli', { device: 'R2', command: 'show version' });
    // Kill R2's per-connection sshd processes (children of its listener): the router's side of the session is gone.
    const listener = (JSON.parse(readFileSync(join(lab.dir, 'state.json'), 'utf8')) as { processes: Array<{ pid: number }> }).processes[1]!.pid;
    execFileSync('/usr/bin/pkill', ['-P', String(listener)]);
    const again = await mcp.call('exec_cli', { device: 'R2', command: 'show ip bgp summary' });
    expect(again.isError).toBe(false);
    expect(again.text).toContain('10.0.0.1');
  });

  it('logs in with a password from the environment, and says so without the password when it is wrong', async () => {
    const inventory = await inventoryWith((inv) => {
      for (const d of inv.devices) d.credential = { password_env: 'FRR_LAB_TEST_PASSWORD' };
    });
    const service = new DeviceService(inventory);
    try {
      process.env.FRR_LAB_TEST_PASSWORD = lab.password;
      expect(await service.exec('R1', 'show version')).toContain('FRRouting');
      service.dropSession('R1');
      process.env.FRR_LAB_TEST_PASSWORD = `${lab.password}-wrong`;
      const error = await failure(service.exec('R1', 'show version'));
      expect(error.kind).toBe('auth_failed');
      expect(error.message).toMatch(/R1 \(127\.0\.0\.1:\d+\): authentication failed for user netops/);
      expect(error.message).not.toContain(lab.password);
    } finally {
      delete process.env.FRR_LAB_TEST_PASSWORD;
      await service.close();
    }
  });

  it('logs in with a key held by an ssh-agent', async () => {
    const sock = join(base, 'agent.sock');
    const agent = execFileSync('/usr/bin/ssh-agent', ['-a', sock, '-s']).toString();
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(agent)?.[1]);
    const saved = process.env.SSH_AUTH_SOCK;
    try {
      execFileSync('/usr/bin/ssh-add', ['-q', join(lab.dir, 'id_ed25519')], { env: { ...process.env, SSH_AUTH_SOCK: sock } });
      const inventory = await inventoryWith((inv) => {
        for (const d of inv.devices) d.credential = { agent: true };
      });
      process.env.SSH_AUTH_SOCK = sock;
      const service = new DeviceService(inventory);
      expect(await service.exec('R2', 'show version')).toContain('FRRouting');
      await service.close();
      delete process.env.SSH_AUTH_SOCK;
      const none = new DeviceService(inventory);
      const error = await failure(none.exec('R2', 'show version'));
      expect(error).toMatchObject({ kind: 'auth_failed', message: 'R2: credential is the ssh-agent, but SSH_AUTH_SOCK is not set' });
      await none.close();
    } finally {
      if (saved === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = saved;
      if (pid > 0) process.kill(pid);
    }
  });

  it('refuses an unknown or changed host key, and says how to trust one', async () => {
    const hosts = readFileSync(lab.knownHostsPath, 'utf8').trim().split('\n');
    const unknown = await inventoryWith((inv) => {
      inv.known_hosts = join(base, 'empty_known_hosts');
    });
    writeFileSync(unknown.knownHostsPath, '');
    const s1 = new DeviceService(unknown);
    const e1 = await failure(s1.exec('R1', 'show version'));
    expect(e1.kind).toBe('host_key_unknown');
    expect(e1.message).toMatch(/host key ssh-ed25519 SHA256:\S+ is not in .*empty_known_hosts.*npm run devices -- trust R1/);
    await s1.close();

    // R2's key recorded under R1's address: what a swapped router (or an interception) looks like.
    const swapped = await inventoryWith((inv) => {
      inv.known_hosts = join(base, 'swapped_known_hosts');
    });
    const r1Address = hosts[0]!.split(' ')[0];
    writeFileSync(swapped.knownHostsPath, `${r1Address} ${hosts[1]!.split(' ').slice(1).join(' ')}\n`);
    const s2 = new DeviceService(swapped);
    const e2 = await failure(s2.exec('R1', 'show version'));
    expect(e2.kind).toBe('host_key_changed');
    expect(e2.message).toContain('HOST KEY CHANGED');
    await s2.close();
  });

  it('refuses a call without its token before anything reaches a router', async () => {
    const before = await runningBgp();
    const stranger = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'config_cli', arguments: { device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] } } }),
    });
    expect(stranger.status).toBe(401);
    expect(await stranger.json()).toMatchObject({ error: { code: 'unauthorized' } });
    await expect(connectMcp(server.mcpUrl, 'not-the-token')).rejects.toMatchObject({ code: 401 });
    expect(await runningBgp()).toBe(before);
  });

  it('is started by the relay itself when DEVICE_INVENTORY is set, and reached through the guard only', async () => {
    const relay = await relayForTest({ agent: createStubRuntime(), env: { DEVICE_INVENTORY: lab.inventoryPath, RELAY_TOOLS_TOKEN: 'frr-tools-token', RELAY_DATA_DIR: tempDir('fault-relay-frr-relay-data-') } });
    try {
      const deep = (await relay.app.inject({ url: '/health/deep' })).json<{ checks: { device_mcp: Record<string, unknown> } }>();
      expect(deep.checks.device_mcp).toMatchObject({ ok: true, latency_ms: expect.any(Number) });
      expect(deep.checks.device_mcp).not.toHaveProperty('url');
      const url = await relay.listen({ port: 0, host: '127.0.0.1' });
      const alert = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
      const guard = await connectMcp(`${url}/device-mcp`, 'frr-tools-token');
      const shown = await guard.call('exec_cli', { incident_id: alert.json().incident_id, device: 'R1', command: 'show ip bgp neighbors 10.0.0.2' });
      await guard.close();
      expect(shown.isError, shown.text).toBe(false);
      expect(shown.text).toMatch(/BGP state = Established/);
    } finally {
      await relay.close();
    }
  });

  it('npm run devices -- trust adds a key only when asked, showing its fingerprint; then the device answers', async () => {
    const inventory = await inventoryWith((inv) => {
      inv.known_hosts = join(base, 'trusted_known_hosts');
    });
    writeFileSync(inventory.knownHostsPath, '');
    const trust = (...extra: string[]) =>
      new Promise<{ code: number; out: string }>((resolve) =>
        execFile(process.execPath, ['--import', 'tsx', 'scripts/devices.ts', 'trust', 'R1', '--inventory', inventory.path, ...extra], { cwd: repoRoot }, (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
        ),
      );
    // Not a terminal and no --yes: nothing is written.
    const refused = await trust();
    expect(refused.code).toBe(2);
    expect(refused.out).toMatch(/R1 \(127\.0\.0\.1:\d+\) presents ssh-ed25519 SHA256:\S+/);
    expect(refused.out).toContain('add --yes');
    expect(readFileSync(inventory.knownHostsPath, 'utf8')).toBe('');

    const trusted = await trust('--yes');
    expect(trusted.code).toBe(0);
    expect(trusted.out).toContain(`trusted: added to ${inventory.knownHostsPath}`);
    const service = new DeviceService(await loadInventory(inventory.path));
    expect(await service.exec('R1', 'show version')).toContain('FRRouting');
    await service.close();
    expect((await trust('--yes')).out).toContain('already trusted');
  });

  it('says a device is unreachable when nothing listens at its address', async () => {
    const inventory = await inventoryWith((inv) => {
      inv.devices[0]!.port = 1;
    });
    const service = new DeviceService(inventory);
    const error = await failure(service.exec('R1', 'show version'));
    expect(error.kind).toBe('unreachable');
    expect(error.message).toBe('R1 (127.0.0.1:1): unreachable (ECONNREFUSED)');
    await service.close();
  });

  it('gives up on a command the router does not answer in time, and does not reuse that session', async () => {
    const inventory = await inventoryWith((inv) => {
      // A stopped daemon never answers, whatever the timeout: a short one only made the calls that
      // must answer (the login, show version) fail on a loaded machine (a fresh clone beside another).
      for (const d of inv.devices) d.command_timeout_ms = 8_000;
    });
    const service = new DeviceService(inventory);
    const bgpd = Number(readFileSync(`/var/run/frr/${lab.routers[1]!.namespace}/bgpd.pid`, 'utf8'));
    try {
      expect(await service.exec('R2', 'show version')).toContain('FRRouting');
      // A stopped bgpd: vtysh waits for it forever, as it would for a wedged daemon.
      process.kill(bgpd, 'SIGSTOP');
      const error = await failure(service.exec('R2', 'show ip bgp summary'));
      expect(error.kind).toBe('timeout');
      expect(error.message).toBe('R2: no prompt after "show ip bgp summary" within 8 s; the session was closed and the next call opens a new one');
      process.kill(bgpd, 'SIGCONT');
      // A fresh session: the late answer to the timed-out command cannot be mistaken for this one's.
      expect(await service.exec('R2', 'show version')).toMatch(/^FRRouting/);
    } finally {
      process.kill(bgpd, 'SIGCONT');
      await service.close();
    }
  });
});
