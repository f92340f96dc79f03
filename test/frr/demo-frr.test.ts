import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, it } from 'vitest';
import { repoRoot } from '../helpers/opencode';
import { NO_FRR } from './frr-available';

/**
 * A hang guard, not a speed bar: the lab, the runtime and a whole run on real routers. Three fresh-clone
 * suites side by side on two cores took it past 3 minutes; the demo's own --timeout-s comes first.
 */
const DEMO_ON_FRR_TIMEOUT_MS = 480_000;

/** The session logs the demo writes into the project's logs/troubleshooting (it prints their paths); removed at the end. */
const logs: string[] = [];
afterAll(() => {
  for (const file of logs) rmSync(file, { force: true });
});

/** `npm run demo -- --frr …` as a user runs it; resolves with its exit code and everything it printed. */
const demo = (flag: '--approve' | '--deny') =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--frr', flag, '--timeout-s', '300'], { cwd: repoRoot, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      for (const m of stdout.matchAll(/^ {2}(?:Relay|Agent) log (\S+)$/gm)) logs.push(m[1]!);
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });

// The two runs share nothing (each its own lab, runtime, relay and ports) and spend most of their time
// waiting on the routers: side by side, not one after the other.
describe.skipIf(NO_FRR).concurrent('npm run demo -- --frr: the whole flow on real routers', () => {
  it('--approve: the real log line opens the incident, the change is applied over SSH, and the peer reports Established', async ({ expect }) => {
    const { code, out } = await demo('--approve');
    expect(out).toMatch(/\[R1 log\] .*%ADJCHANGE: neighbor 10\.0\.0\.2\(R2\) in vrf default Down Admin\. shutdown/);
    expect(out).toMatch(/R1# show running-config bgpd\n\s+Building configuration/);
    expect(out).toContain('router bgp 65001\n      no neighbor 10.0.0.2 shutdown');
    expect(out).toMatch(/Outcome {3}resolved/);
    // Confirmed apply on a real router: the relay's own post-check kept the change.
    expect(out).toMatch(/Change {4}confirmed by post-check/);
    expect(out).toMatch(/Router {4}R2 \(the peer\): BGP state = Established/);
    expect(code).toBe(0);
  }, DEMO_ON_FRR_TIMEOUT_MS);

  it('--deny: escalated, and the session is still down on the router', async ({ expect }) => {
    const { code, out } = await demo('--deny');
    expect(out).toMatch(/Outcome {3}escalated: The operator denied/);
    expect(out).not.toMatch(/Change {4}/);
    expect(out).toMatch(/Router {4}R1: BGP state = Idle/);
    expect(out).not.toMatch(/R2 \(the peer\): BGP state = Established/);
    expect(code).toBe(0);
  }, DEMO_ON_FRR_TIMEOUT_MS);
});
