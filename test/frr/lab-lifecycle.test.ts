import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alertResultSchema } from '../../src/adapters/alert-sources/schema';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import { ipCommand, run } from '../../harness/frr-lab/host';
import { startWatcher, type WatchEvent } from '../../harness/frr-lab/watcher';
import { repoRoot } from '../helpers/opencode';
import { tempDir } from '../helpers/temp-dir';
import { NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';

/** What a lab leaves on the host, found by its id: namespaces, FRR folders, processes. */
async function leftovers(id: string): Promise<string[]> {
  const found: string[] = [];
  const ns = await run(ipCommand(), ['netns', 'list']);
  found.push(...ns.split('\n').filter((l) => l.includes(id)));
  for (const d of ['/etc/frr', '/var/run/frr', '/var/log/frr']) {
    if (existsSync(d)) found.push(...(await run('/usr/bin/ls', [d])).split('\n').filter((l) => l.includes(id)).map((l) => `${d}/${l}`));
  }
  const ps = await run('/usr/bin/ps', ['-eo', 'args']);
  found.push(...ps.split('\n').filter((l) => l.includes(id) && !l.includes('ps -eo')));
  return found;
}

/** A stand-in for the relay's webhook that keeps what it was sent. */
async function receiver() {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"accepted"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, close: () => new Promise((r) => server.close(r)) };
}

/** `npm run lab -- --frr` started as a user would, then killed with SIGKILL once it is up: what it leaves. */
async function killedLab(): Promise<{ dir: string; out: string; id: string }> {
  const dir = tempDir('fault-relay-frr-cli-');
  const out = join(dir, 'frr.json');
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/lab.ts', '--frr', '--out', out, '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await new Promise<void>((resolve) => {
    let printed = '';
    child.stdout.on('data', (c: Buffer) => ((printed += c.toString()), printed.includes('Ctrl-C') && resolve()));
  });
  const id = (JSON.parse(readFileSync(out, 'utf8')) as { routers: Array<{ namespace: string }> }).routers[0]!.namespace.split('-')[0]!;
  child.kill('SIGKILL');
  await exited;
  return { dir, out, id };
}

describe.skipIf(NO_FRR)('the FRR lab on this machine', () => {
  it('turns a real neighbor shutdown into the Splunk alert the saved search would post, and the repair into an Up line', async () => {
    const lab = await frrLabForTest();
    const relay = await receiver();
    const events: WatchEvent[] = [];
    let notify = () => {};
    const watcher = startWatcher({ routers: lab.routers, relayUrl: relay.url, onEvent: (e) => (events.push(e), notify()) });
    // Waits for the watcher's events; a run that never comes says what was seen and what the routers report.
    const until = (test: () => boolean, what: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          void Promise.all([lab.vtysh('R1', 'show bgp summary'), lab.vtysh('R2', 'show bgp summary')]).then((states) =>
            reject(new Error(`no ${what} within 20 s; watcher saw: ${events.map((e) => `${e.router} ${e.change.state} ${e.change.reason}${e.posted ? ' (posted)' : ''}${e.error ? ` (${e.error})` : ''}`).join('; ') || 'nothing'}\n${states.join('\n')}`)),
          );
        }, 20_000);
        notify = () => {
          if (!test()) return;
          clearTimeout(timer);
          resolve();
        };
        notify();
      });
    try {
      await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'end');
      await until(() => events.some((e) => e.posted), 'alert posted for the shutdown');
      const alert = relay.bodies[0] as { result: Record<string, unknown> };
      expect(alert.result).toMatchObject({ alert_def_id: 'AD000002', system: 'R1', neighbor_ip: '10.0.0.2', neighbor_as: '65002' });
      expect(String(alert.result._raw)).toMatch(/%ADJCHANGE: neighbor 10\.0\.0\.2\(R2\) in vrf default Down Admin\. shutdown/);
      // The relay's own schema accepts it as it is.
      expect(alertResultSchema.safeParse(alert.result).success).toBe(true);
      // Only the shut router's line is an alert; the peer's "Notification received" is its symptom.
      expect(relay.bodies).toHaveLength(1);

      await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end');
      await until(() => events.some((e) => e.router === 'R1' && e.change.state === 'Up'), 'Up line after the repair');
      await waitForSession(lab.vtysh, 'R2', '10.0.0.1', 'Established');
    } finally {
      watcher.close();
      await relay.close();
    }
    await lab.stop();
    expect(await leftovers(lab.id)).toEqual([]);
  });

  it('npm run lab -- --frr: prints the routers, writes --out, and Ctrl-C removes everything', async () => {
    const dir = tempDir('fault-relay-frr-cli-');
    const out = join(dir, 'frr.json');
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/lab.ts', '--frr', '--out', out, '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        printed += c.toString();
        if (printed.includes('Ctrl-C')) resolve();
      });
      child.stderr.on('data', (c: Buffer) => (printed += c.toString()));
      void exited.then(() => reject(new Error(`lab exited early:\n${printed}`)));
    });
    const summary = JSON.parse(readFileSync(out, 'utf8')) as { device_mcp_url: string; routers: Array<{ name: string; namespace: string; ssh: string }> };
    expect(summary.device_mcp_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(summary.routers.map((r) => r.name)).toEqual(['R1', 'R2']);
    expect(summary.routers[0]!.ssh).toMatch(/^127\.0\.0\.1:\d+$/);
    for (const r of summary.routers) expect(printed).toContain(`${r.name}   namespace ${r.namespace}`);
    const id = summary.routers[0]!.namespace.split('-')[0]!;
    expect(await leftovers(id)).not.toEqual([]);

    // Any definition's fault from another terminal, as real configuration; the lab's watcher sees the router's own line.
    const lab = (...args: string[]) => run(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/lab.ts'), '--frr', ...args, '--out', out]);
    expect(await lab('inject', 'AD000005', '--device', 'R1', '--interface', 'eth-R2')).toMatch(/^R1: .*"ospf_interface_passive".* built/m);
    await new Promise<void>((resolve, reject) => {
      const seen = () => /\[R1 log\] .*AdjChg: Nbr .* Full -> Deleted/.test(printed) && resolve();
      seen();
      child.stdout.on('data', seen);
      void exited.then(() => reject(new Error(`lab exited:\n${printed}`)));
    });
    expect(await lab('clear')).toContain('every fault cleared');
    expect(await run('/usr/bin/vtysh', ['-N', summary.routers[0]!.namespace, '-c', 'show running-config ospfd'])).not.toContain('ip ospf passive');
    await expect(lab('inject', 'AD000099', '--device', 'R1')).rejects.toThrow(/inject needs a fault the lab knows/);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(await leftovers(id)).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('npm run lab -- --frr --down removes a lab that was killed', async () => {
    const { out, id } = await killedLab();
    expect(await leftovers(id)).not.toEqual([]);

    const down = await run(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/lab.ts'), '--frr', '--down', '--out', out]);
    expect(down).toMatch(/FRR lab removed: \d+ processes, namespace /);
    expect(await leftovers(id)).toEqual([]);
    const again = await run(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/lab.ts'), '--frr', '--down', '--out', out]);
    expect(again).toContain('no FRR lab was up');
  });

  it('without root, exits at once with one line saying what is missing', async () => {
    const result = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', 'scripts/lab.ts', '--frr'], { cwd: repoRoot });
      let stderr = '';
      let stdout = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('exit', (code) => resolve({ code, stderr, stdout }));
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('lab: the FRR lab needs root (it creates network namespaces and starts FRR and sshd): run it with sudo\n');
  });

  // --lab, not --all: a sweep of every lab would also take the labs other tests run at the same time.
  it('npm run lab -- --frr --down --lab <id> removes a lab whose state file is gone too', async () => {
    const { dir, out, id } = await killedLab();
    rmSync(join(dir, 'frr'), { recursive: true, force: true }); // the state file with it
    expect(await run(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/lab.ts'), '--frr', '--down', '--out', out])).toContain('no FRR lab was up');
    expect(await leftovers(id)).not.toEqual([]);
    const swept = await run(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/lab.ts'), '--frr', '--down', '--lab', id]);
    expect(swept).toContain(`namespace ${id}-R1`);
    expect(await leftovers(id)).toEqual([]);
    expect(await run('/usr/bin/ps', ['-eo', 'args'])).not.toContain(`FAULT_RELAY_LAB=${id}`);
  });

  // A machine whose test run was killed whole: the daemons are gone, their pid files stay, and the pids
  // are reused by the time someone runs --down.
  it('--down never signals a process that took over a dead daemon\'s pid', async () => {
    const { out, id } = await killedLab();
    const bgpdFile = `/var/run/frr/${id}-R1/bgpd.pid`;
    const bgpd = Number(readFileSync(bgpdFile, 'utf8'));
    process.kill(bgpd, 'SIGKILL');
    await run('/usr/bin/tail', [`--pid=${bgpd}`, '-s', '0.05', '-f', '/dev/null']);
    const bystander = spawn('/usr/bin/sleep', ['600'], { stdio: 'ignore' });
    const bystanderExit = new Promise<NodeJS.Signals | null>((r) => bystander.once('exit', (_code, signal) => r(signal)));
    try {
      writeFileSync(bgpdFile, `${bystander.pid}\n`);
      expect(await run(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/lab.ts'), '--frr', '--down', '--out', out])).toContain(`namespace ${id}-R1`);
      expect(await leftovers(id)).toEqual([]);
      expect(bystander.exitCode).toBeNull();
      expect(bystander.signalCode).toBeNull();
      expect(process.kill(bystander.pid!, 0)).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
      await bystanderExit;
    }
  });
});
