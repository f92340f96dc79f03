/**
 * The FRR part of `npm run demo -- --frr`: two real FRRouting routers, the SSH device server on them,
 * and the log watcher as the alert source. The fault is a real `neighbor … shutdown` on R1; the alert
 * is what the router's own log line becomes.
 */
import path from 'node:path';
import { startDeviceServer, type RunningDeviceServer } from '../src/adapters/devices/server';
import { sessionState, waitForSession } from '../harness/frr-lab/bgp-state';
import { frrLabUnavailable } from '../harness/frr-lab/host';
import { startFrrLab, type FrrLab } from '../harness/frr-lab/lab';
import { startWatcher } from '../harness/frr-lab/watcher';
import type { RawTestCase } from '../src/runbooks/schema-test-case';
import { applyFrrFault, resetFrrLab } from '../harness/frr-lab/faults';

export interface FrrDemo {
  lab: FrrLab;
  devices: RunningDeviceServer;
  /** Shuts R1's session to `neighbor`; resolves with the incident the relay opened from the log line. */
  fireFault(relayUrl: string, device: string, neighbor: string): Promise<string>;
  /** Builds a test case's faults as real configuration; resolves with the incident the relay opened from the log line. */
  fireCase(relayUrl: string, tc: RawTestCase): Promise<string>;
  /** The session as both routers report it, and whether the peer itself says Established. */
  finalState(device: string, neighbor: string, wantUp: boolean): Promise<{ lines: string[]; ok: boolean }>;
  stop(): Promise<void>;
}

export async function startFrrDemo(dataDir: string, out: (line: string) => void): Promise<FrrDemo> {
  const missing = frrLabUnavailable();
  if (missing) throw new Error(missing);
  const lab = await startFrrLab({ dir: path.join(dataDir, 'frr-lab'), routers: 2 });
  let devices: RunningDeviceServer;
  try {
    devices = await startDeviceServer({ inventoryPath: lab.inventoryPath, port: 0 });
  } catch (error) {
    await lab.stop();
    throw error;
  }
  let watcher: { close(): void } | undefined;
  const peerOf = (device: string, neighbor: string) => {
    const router = lab.routers.find((r) => r.name === device)!;
    const link = router.links.find((l) => l.peerAddress === neighbor)!;
    return { router, peer: link.peer, peerAddress: link.address };
  };
  /** The watcher posts what the routers log; resolves with the first incident the relay names. */
  const watch = (relayUrl: string, resolve: (incident: string) => void, reject: (error: Error) => void) => {
    watcher = startWatcher({
      routers: lab.routers,
      relayUrl,
      onEvent: (e) => {
        out(`  [${e.router} log] ${e.change.raw}`);
        if (e.error) reject(new Error(e.error));
        if (e.posted) {
          const body = e.posted.body as { incident_id?: string; status?: string };
          out(`  watcher → relay: ${e.posted.status} ${body.status ?? ''} ${body.incident_id ?? ''}`);
          if (body.incident_id) resolve(`${body.incident_id} ${body.status ?? ''}`);
          else reject(new Error(`the relay answered ${e.posted.status}: ${JSON.stringify(e.posted.body)}`));
        }
      },
    });
  };
  return {
    lab,
    devices,
    async fireCase(relayUrl, tc) {
      await resetFrrLab(lab);
      return new Promise<string>((resolve, reject) => {
        // Any definition's alert (a detector's line), not only a BGP adjacency change.
        watcher = startWatcher({
          routers: lab.routers,
          relayUrl,
          onAlert: (e) => {
            out(`  [${e.router} log] ${e.detection.raw}`);
            if (e.error) return reject(new Error(e.error));
            const body = e.posted?.body as { incident_id?: string; status?: string } | undefined;
            out(`  watcher → relay: ${e.posted?.status ?? ''} ${body?.status ?? ''} ${body?.incident_id ?? ''}`);
            // Both ends may log the fault (OSPF does): the demo follows the case's own device; the other runs beside it.
            if (e.router !== tc.alert.device_hostname) return;
            if (body?.incident_id) resolve(`${body.incident_id} ${body.status ?? ''}`);
            else reject(new Error(`the relay answered ${e.posted?.status}: ${JSON.stringify(e.posted?.body)}`));
          },
        });
        void (async () => {
          for (const fault of tc.lab.faults) {
            out(`  fault: ${JSON.stringify(fault)}`);
            const cannot = await applyFrrFault(lab, fault);
            if (cannot) throw new Error(cannot);
          }
        })().catch(reject);
      });
    },
    fireFault: (relayUrl, device, neighbor) =>
      new Promise<string>((resolve, reject) => {
        watch(relayUrl, resolve, reject);
        const { router } = peerOf(device, neighbor);
        out(`  fault: ${device}# configure terminal / router bgp ${router.as} / neighbor ${neighbor} shutdown`);
        lab.vtysh(device, 'configure terminal', `router bgp ${router.as}`, `neighbor ${neighbor} shutdown`, 'end').catch(reject);
      }),
    async finalState(device, neighbor, wantUp) {
      const { peer, peerAddress } = peerOf(device, neighbor);
      if (wantUp) await waitForSession(lab.vtysh, peer, peerAddress, 'Established', 30_000).catch(() => undefined);
      const mine = (await lab.vtysh(device, `show ip bgp neighbors ${neighbor}`)).split('\n').filter((l) => /BGP state|Administratively/.test(l));
      const theirs = (await lab.vtysh(peer, `show ip bgp neighbors ${peerAddress}`)).split('\n').filter((l) => /BGP state/.test(l));
      const peerState = await sessionState(lab.vtysh, peer, peerAddress);
      return {
        lines: [...mine.map((l) => `${device}: ${l.trim()}`), ...theirs.map((l) => `${peer} (the peer): ${l.trim()}`)],
        ok: wantUp ? peerState === 'Established' : peerState !== 'Established',
      };
    },
    async stop() {
      watcher?.close();
      await devices.stop();
      await lab.stop();
    },
  };
}
