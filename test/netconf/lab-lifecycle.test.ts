import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { netconfLabLeftovers, teardownNetconfLabSync } from '../../harness/netconf-lab/teardown';
import { repoRoot } from '../helpers/opencode';
import { NO_NETCONF } from './netconf-lab-for-test';

interface Started {
  out: string;
  summary: { id: string; inventory: string };
  printed: () => string;
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
}

/** `npm run lab -- --netconf` as a user starts it, once it says it is up (the line naming Ctrl-C). */
async function startLabCommand(): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'fault-relay-netconf-cli-'));
  const out = join(dir, 'netconf.json');
  // Whatever the test does, the lab it started goes (synchronously, from its state file), then its folder.
  onTestFinished(() => {
    teardownNetconfLabSync(join(dir, 'netconf', 'state.json'));
    rmSync(dir, { recursive: true, force: true });
  });
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/lab.ts', '--netconf', '--out', out], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => ((printed += c.toString()), printed.includes('Ctrl-C') && resolve()));
    void exited.then((code) => reject(new Error(`lab exited (${code}) before it was up: ${printed}`)));
  });
  const summary = JSON.parse(readFileSync(out, 'utf8')) as Started['summary'];
  return { out, summary, printed: () => printed, exited, kill: (s) => child.kill(s) };
}

describe.skipIf(NO_NETCONF)('npm run lab -- --netconf', () => {
  it('prints its device inventory and how to point the relay at it, and removes everything on Ctrl-C', async () => {
    const lab = await startLabCommand();
    expect(lab.printed()).toContain(`DEVICE_INVENTORY=${lab.summary.inventory} npm run relay`);
    const inventory = await loadInventory(lab.summary.inventory);
    expect([...inventory.devices.values()].map((d) => [d.name, d.platform])).toEqual([['PE1', 'netconf']]);
    lab.kill('SIGINT');
    expect(await lab.exited).toBe(0);
    expect(existsSync(lab.out)).toBe(false);
    expect(await netconfLabLeftovers(lab.summary.id, `/run/fault-relay-${lab.summary.id}`)).toEqual([]);
  });

  it('--down removes a lab whose command was killed', async () => {
    const lab = await startLabCommand();
    lab.kill('SIGKILL');
    await lab.exited;
    // Killed without its teardown: the detached daemons and the namespace are still there.
    expect(await netconfLabLeftovers(lab.summary.id, `/run/fault-relay-${lab.summary.id}`)).not.toEqual([]);
    const down = spawn(process.execPath, ['--import', 'tsx', 'scripts/lab.ts', '--netconf', '--down', '--out', lab.out], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    down.stdout.on('data', (c: Buffer) => (said += c.toString()));
    expect(await new Promise((r) => down.once('exit', r))).toBe(0);
    expect(said).toContain('NETCONF lab removed');
    expect(existsSync(lab.out)).toBe(false);
    expect(await netconfLabLeftovers(lab.summary.id, `/run/fault-relay-${lab.summary.id}`)).toEqual([]);
  });
});
