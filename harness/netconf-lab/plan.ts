import { accessSync, constants } from 'node:fs';
import { ipCommand } from '../frr-lab/host';

/**
 * The NETCONF lab's shape, as plain data: one netconfd (yuma123, Debian's `netconfd` package) in
 * its own network namespace with `--target=candidate`, reached through a real sshd whose
 * `Subsystem netconf` runs Debian's `netconf-subsystem`, on 127.0.0.1. The 10.x addresses below are
 * configuration data inside netconfd only; nothing is routed anywhere.
 */

export const NETCONFD = '/usr/sbin/netconfd';
export const NETCONF_SUBSYSTEM = '/usr/sbin/netconf-subsystem';
export const LAB_NS = 'urn:fault-relay:lab:bgp';

/** A small YANG module standing in for a router's BGP configuration (netconfd stores it without SIL code). */
export const LAB_YANG = `module fault-relay-lab-bgp {
  yang-version 1.1;
  namespace "${LAB_NS}";
  prefix frl;
  organization "Fault Relay";
  description "The NETCONF lab's stand-in for a router's BGP configuration.";
  revision 2025-01-01 { description "First version."; }
  container bgp {
    leaf as { type uint32 { range "1..4294967295"; } }
    list neighbor {
      key address;
      leaf address { type string { pattern '[0-9]{1,3}(\\.[0-9]{1,3}){3}'; } }
      leaf remote-as { type uint32 { range "1..4294967295"; } mandatory true; }
      leaf shutdown { type boolean; default false; }
      leaf description { type string { length "1..80"; } }
    }
  }
}
`;

/** Where the lab starts: R1's view of AD000002, neighbor 10.0.0.2 administratively down. */
export const STARTUP_CONFIG = `<?xml version="1.0" encoding="UTF-8"?>
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
  <bgp xmlns="${LAB_NS}">
    <as>65001</as>
    <neighbor><address>10.0.0.2</address><remote-as>65002</remote-as><shutdown>true</shutdown></neighbor>
  </bgp>
</config>
`;

export interface NetconfNodePlan {
  id: string;
  name: string;
  namespace: string;
  sshPort: number;
  /** Runtime folder the login user must reach (socket, authorized keys): outside the lab's private folder. */
  runDir: string;
  socket: string;
  /** The lab's private folder (root only). */
  dir: string;
  user: string;
}

export function planNode(id: string, dir: string, sshPort: number, user: string): NetconfNodePlan {
  const runDir = `/run/fault-relay-${id}`;
  return { id, name: 'PE1', namespace: `${id}-PE1`, sshPort, runDir, socket: `${runDir}/ncxserver.sock`, dir, user };
}

/** netconf-subsystem maps the SSH port it was reached on to netconfd's socket (its `PORT@PATH` form). */
export const subsystemCommand = (p: NetconfNodePlan) => `${NETCONF_SUBSYSTEM} --ncxserver-sockname=${p.sshPort}@${p.socket}`;

export function netconfdArgs(p: NetconfNodePlan): string[] {
  return [
    '--target=candidate',
    `--module=${p.dir}/modules/fault-relay-lab-bgp.yang`,
    `--startup=${p.dir}/startup-cfg.xml`,
    `--ncxserver-sockname=${p.socket}`,
    // netconfd accepts sessions only for the SSH ports it is told (830 when none).
    `--port=${p.sshPort}`,
    // The lab login bypasses NACM, as an operator account with full rights would.
    `--superuser=${p.user}`,
    `--log=${p.dir}/netconfd.log`,
    '--log-level=info',
  ];
}

/**
 * sshd for the node: key login only, for the lab user only, on loopback. `Subsystem netconf` is
 * what the client asks for; `ForceCommand` lets exactly that command run (sshd hands it over in
 * SSH_ORIGINAL_COMMAND), so a shell or exec request on this port gets nothing.
 */
export function sshdConfig(p: NetconfNodePlan, hostKey: string): string {
  const cmd = subsystemCommand(p);
  return [
    `Port ${p.sshPort}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey}`,
    'PidFile none',
    'UsePAM no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    `AuthorizedKeysFile ${p.runDir}/authorized_keys`,
    'StrictModes no',
    'PermitRootLogin no',
    `AllowUsers ${p.user}`,
    `Subsystem netconf ${cmd}`,
    `ForceCommand test "$SSH_ORIGINAL_COMMAND" = "${cmd}" && exec ${cmd}`,
    'PermitTTY no',
    'DisableForwarding yes',
    'PrintMotd no',
    'PrintLastLog no',
    '',
  ].join('\n');
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why the NETCONF lab cannot run here, in one line, or undefined when it can. */
export function netconfLabUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'the NETCONF lab needs Linux (network namespaces)';
  if (process.getuid?.() !== 0) return 'the NETCONF lab needs root (it creates a network namespace and starts netconfd and sshd)';
  const need: Array<[string, string]> = [
    [NETCONFD, 'netconfd'],
    [NETCONF_SUBSYSTEM, 'netconfd'],
    ['/usr/sbin/sshd', 'openssh-server'],
    ['/usr/bin/ssh-keygen', 'openssh-client'],
    ['/usr/bin/openssl', 'openssl'],
    ['/usr/bin/unshare', 'util-linux'],
  ];
  const missing = new Set(need.filter(([path]) => !executable(path)).map(([, pkg]) => pkg));
  if (ipCommand() === 'ip') missing.add('iproute2');
  if (missing.size) return `the NETCONF lab needs ${[...missing].join(', ')}: apt-get install -y ${[...missing].join(' ')}`;
  return undefined;
}
