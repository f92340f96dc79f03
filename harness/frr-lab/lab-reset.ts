import { bgpSessions, sessionKey, waitForEstablished } from './bgp-state';
import { resetInterfaceFaults } from './interface-faults';
import type { FrrLabRouter, FrrLabRouters } from './lab';
import { largeDatabaseUndo } from './large-database-fault';
import { mtuIgnoreUndo, passwordUndo, resetKernelMtu } from './mismatch-faults';
import { passiveUndo, waitForOspfFull } from './ospf';
import { remoteAsUndo } from './remote-as-faults';
import { readRouterView, type RouterView } from './router-view';
import { resetPeerUnreachable } from './unreachable-fault';

/**
 * The way back to a clean lab between test cases: every session up, no leftover limit, every
 * adjacency Full. Each vtysh costs ~80 ms of CPU to start whatever it runs, so each router is asked
 * what it holds once, every line that undoes what a fault left goes in one configuration session,
 * and the sessions still down are cleared in one more.
 */

const escaped = (address: string) => address.replace(/\./g, '\\.');

/**
 * The BGP faults faults.ts builds by a neighbor's own line (shutdown, update-source, maximum-prefix),
 * undone where the running configuration has them (configuration lines for resetFrrLab).
 */
function bgpNeighborUndo(r: FrrLabRouter, view: RouterView): string[] {
  const has = (address: string, what: string) => new RegExp(`^\\s+neighbor ${escaped(address)} ${what}\\b`, 'm').test(view.config);
  const global = r.links.map((l) => l.peerAddress);
  const neighborLines = [
    ...global.filter((p) => has(p, 'shutdown')).map((p) => `no neighbor ${p} shutdown`),
    ...global.filter((p) => has(p, 'update-source')).map((p) => `no neighbor ${p} update-source`),
  ];
  const limited = global.filter((p) => has(p, 'maximum-prefix'));
  const lines: string[] = [];
  if (neighborLines.length || limited.length) {
    lines.push(`router bgp ${r.as}`, ...neighborLines);
    if (limited.length) lines.push('address-family ipv4 unicast', ...limited.map((p) => `no neighbor ${p} maximum-prefix`), 'exit-address-family');
    lines.push('exit');
  }
  if (r.vrf && has(r.vrf.peerAddress, 'shutdown')) lines.push(`router bgp ${r.as} vrf ${r.vrf.name}`, `no neighbor ${r.vrf.peerAddress} shutdown`, 'exit');
  return lines;
}

/** Every configuration line that undoes what a fault left on this router, in one list (none on a clean router). */
function undoLines(r: FrrLabRouter, view: RouterView): string[] {
  return [...remoteAsUndo(r, view), ...passwordUndo(r, view), ...bgpNeighborUndo(r, view), ...largeDatabaseUndo(view), ...mtuIgnoreUndo(r, view), ...passiveUndo(r, view)];
}

/**
 * One router's configuration put back, then every global session not up cleared. Only a reset brings
 * back a session that is not up: one held down by a prefix overflow stays Idle (PfxCt) after the limit
 * is removed, and every NOTIFICATION a router sends doubles its wait before it connects again (FRR's
 * start timer, up to 120 s: a rejected OPEN every second for 30 s means a minute idle). `clear` puts
 * that wait back to 1 s, so the lab converges in seconds whatever the last case did. A session that is
 * up is left alone (a clear would take it down).
 */
async function resetRouter(lab: FrrLabRouters, r: FrrLabRouter): Promise<void> {
  const view = await readRouterView(lab, r.name);
  const lines = undoLines(r, view);
  const sessions = lines.length > 0 ? (await lab.vtysh(r.name, 'configure terminal', ...lines, 'end'), await bgpSessions(lab.vtysh, r.name)) : view.sessions;
  const down = r.links.map((l) => l.peerAddress).filter((p) => sessions.get(sessionKey(p))?.state !== 'Established');
  if (down.length > 0) await lab.vtysh(r.name, ...down.map((p) => `clear ip bgp ${p}`));
}

/** Every session back up, no leftover limits, every adjacency Full: what each test case starts from. */
export async function resetFrrLab(lab: FrrLabRouters): Promise<void> {
  // Links first: no session can come back over a link that is down (interface-faults.ts); then the
  // peers answer again (unreachable-fault.ts) and every link is at the lab's MTU (mismatch-faults.ts).
  await resetInterfaceFaults(lab);
  await resetPeerUnreachable(lab);
  await resetKernelMtu(lab);
  await Promise.all(lab.routers.map((r) => resetRouter(lab, r)));
  await waitForEstablished(lab.routers, lab.vtysh);
  await waitForOspfFull(lab);
}
