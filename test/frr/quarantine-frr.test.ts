import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RunningDeviceServer } from '../../src/adapters/devices/server';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { untilIncident } from '../helpers/incident-waits';
import { ana, quarantineRelay } from '../helpers/quarantine-relay';
import { shutdownR2 } from './confirmed-apply-helpers';
import { NO_FRR } from './frr-available';
import { frrLabForFile } from './lab-for-test';
import { decideAs } from '../helpers/decide-as';

/**
 * On real FRR routers: R1's session dies part-way through a change, or while a change is provisional,
 * and the device tool server cannot get back in to put the configuration back. The change stays on
 * the router, and the relay quarantines R1 until an approver clears it.
 */
let lab: FrrLab;
let server: RunningDeviceServer;
/** What the device server does just before it sends line `line` of a change to R1 (once), and how many lines it sent to R1. */
let breakAt: { line: number; act: () => void } | undefined;
let linesToR1 = 0;

const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('/usr/bin/pgrep', ['-P', String(pid)]).toString().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** R1's sshd: its listener, and every process of the sessions under it (their privilege-separated children and vtysh). */
function r1Sshd(): { listener: number; sessions: number[] } {
  const port = lab.routers.find((r) => r.name === 'R1')!.ssh.split(':')[1]!;
  const listener = Number(/pid=(\d+)/.exec(execFileSync('/usr/bin/ss', ['-Hltnp', `sport = :${port}`]).toString())?.[1]);
  expect(listener).toBeGreaterThan(1);
  const sessions: number[] = [];
  for (let next = childrenOf(listener); next.length; next = next.flatMap(childrenOf)) sessions.push(...next);
  return { listener, sessions };
}

const beforeLine = (device: string, line: number) => {
  if (device !== 'R1') return;
  linesToR1 += 1;
  if (breakAt?.line !== line) return;
  const act = breakAt.act;
  breakAt = undefined;
  act();
};
frrLabForFile({ name: 'frr-quarantine', deviceServer: { journal: true, beforeLine } }, (shared) => {
  lab = shared.lab;
  server = shared.server!;
});

describe.skipIf(NO_FRR)('a rollback that fails on a real router quarantines it', () => {
  it('R1 loses its session part-way through a change and cannot be logged into again: R1 quarantined from the structured failure, with a timeline line; nothing reaches it until an approver clears it', { timeout: 180_000 }, async () => {
    const lines = ['router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'neighbor 10.0.0.2 description left-part-way'];
    const t = await quarantineRelay({ deviceServer: { url: server.mcpUrl, token: server.token } });
    let stopped: number | undefined;
    try {
      const first = await t.fire('10.0.0.2');
      expect((await t.ask(first, lines)).json).toMatchObject({ status: 'pending' });
      await decideAs(t.relay, first, 'APPROVED', 'ana@example.net');
      // Just before the third line: R1's sshd stops taking logins (its listener paused) and the change's session is killed, down to its vtysh.
      breakAt = {
        line: 2,
        act: () => {
          const sshd = r1Sshd();
          expect(sshd.sessions.length).toBeGreaterThan(0);
          stopped = sshd.listener;
          process.kill(sshd.listener, 'SIGSTOP');
          for (const pid of sshd.sessions) process.kill(pid, 'SIGKILL');
        },
      };
      const failed = await t.device.call('config_cli', { incident_id: first, device: 'R1', commands: lines });
      expect(failed.isError).toBe(true);
      expect(breakAt).toBeUndefined();
      // The second line is on the router, the third never reached it: nothing put it back.
      const running = await lab.vtysh('R1', 'show running-config');
      expect(running).toContain('neighbor 10.0.0.2 shutdown');
      expect(running).not.toContain('left-part-way');

      const timeline = t.relay.incidents.timeline(first);
      expect(timeline.find((e) => e.type === 'device.config_failed')).toMatchObject({ reached: true });
      expect(timeline.find((e) => e.type === 'device.quarantined')?.reason).toMatch(/^a change of \S+ failed part-way on R1 and the device was not read back as before \(\[session_lost\] /);
      expect((await t.health()).reasons?.join('\n')).toMatch(/^R1 is quarantined since \S+: a change of /m);

      // R1 answers again, but nothing reaches it: another incident gets no card, and no line is sent.
      process.kill(stopped!, 'SIGCONT');
      stopped = undefined;
      const sent = linesToR1;
      const second = await t.fire('10.0.0.3');
      expect((await t.ask(second, ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'])).json).toMatchObject({ status: 'escalated_quarantined', device: 'R1' });
      expect(t.relay.incidents.get(second)).toMatchObject({ state: 'escalated', approval_request: null });
      expect(linesToR1).toBe(sent);

      expect((await t.clear('R1', ana.token)).statusCode).toBe(200);
      expect(t.relay.incidents.timeline(first).find((e) => e.type === 'device.cleared')).toMatchObject({ device: 'R1', by: 'ana@example.net' });
    } finally {
      if (stopped) process.kill(stopped, 'SIGCONT');
      await t.close();
      // The next case starts from the lab's own configuration.
      await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 shutdown');
    }
  });

  it('R1 loses its sshd in the confirm window: the change stays on it, rollback_failed, R1 quarantined; no card and no configuration until an approver clears it', { timeout: 180_000 }, async () => {
    // The post-check's waits capped at 2 s: the sshd is gone long before the first one ends.
    const t = await quarantineRelay({ deviceServer: { url: server.mcpUrl, token: server.token }, postCheckPaceS: 2 });
    try {
      const first = await t.fire('10.0.0.2');
      expect((await t.ask(first, shutdownR2)).json).toMatchObject({ status: 'pending' });
      await decideAs(t.relay, first, 'APPROVED', 'ana@example.net');
      const applied = await t.device.call('config_cli', { incident_id: first, device: 'R1', commands: shutdownR2 });
      expect(applied.isError, applied.text).toBe(false);
      expect(t.relay.incidents.get(first)!.change?.state).toBe('pending');

      // R1's sshd (its listener and every session under it) is killed: the router itself keeps running.
      const port = lab.routers.find((r) => r.name === 'R1')!.ssh.split(':')[1]!;
      const listener = Number(/pid=(\d+)/.exec(execFileSync('/usr/bin/ss', ['-Hltnp', `sport = :${port}`]).toString())?.[1]);
      expect(listener).toBeGreaterThan(1);
      // Its sessions are told to end (they take their privilege-separated children with them), and no listener is left to log in again.
      const sessions = execFileSync('/usr/bin/pgrep', ['-P', String(listener)]).toString().split('\n').filter(Boolean).map(Number);
      expect(sessions.length).toBeGreaterThan(0);
      process.kill(listener, 'SIGKILL');
      for (const pid of sessions) process.kill(pid, 'SIGTERM');

      const ended = await untilIncident(t.relay, first, (_i, timeline) => timeline.some((e) => e.type === 'device.quarantined'));
      expect(ended.change).toMatchObject({ state: 'rollback_failed', ended_by: 'session_lost' });
      // The change is still on the router: nothing could put it back.
      expect(await lab.vtysh('R1', 'show running-config')).toContain('neighbor 10.0.0.2 shutdown');
      const health = await t.health();
      expect(health.status).toBe('degraded');
      expect(health.reasons?.join('\n')).toMatch(/^R1 is quarantined since \S+: change chg-\S+ of \S+: ROLLBACK FAILED \(the session to the device was lost\)/m);

      // Another incident on R1: no card, escalated with the reason.
      const second = await t.fire('10.0.0.3');
      expect((await t.ask(second, ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'])).json).toMatchObject({ status: 'escalated_quarantined', device: 'R1' });
      expect(t.relay.incidents.get(second)).toMatchObject({ state: 'escalated', approval_request: null });

      // A person who checked the router clears it.
      const cleared = await t.clear('R1', ana.token);
      expect(cleared.statusCode, cleared.body).toBe(200);
      expect(t.relay.incidents.timeline(first).find((e) => e.type === 'device.cleared')).toMatchObject({ device: 'R1', by: 'ana@example.net' });
      expect((await t.health()).reasons ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/quarantined/)]));
    } finally {
      await t.close();
    }
  });
});
