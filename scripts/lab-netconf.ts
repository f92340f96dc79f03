/**
 * `npm run lab -- --netconf …`: one NETCONF device (netconfd with a candidate datastore behind a real
 * sshd `Subsystem netconf`, in its own network namespace) and a device inventory for it, so a relay
 * started with DEVICE_INVENTORY runs AD000002's netconf variants on it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { startNetconfLab, netconfStateFileIn } from '../harness/netconf-lab/lab';
import { netconfLabUnavailable } from '../harness/netconf-lab/plan';
import { teardownNetconfLab } from '../harness/netconf-lab/teardown';
import type { Fail } from './cli';
import { errorText } from '../src/core/error-body';

export interface NetconfLabArgs {
  out?: string;
  down?: boolean;
}

export const DEFAULT_NETCONF_OUT = '.lab/netconf.json';
/** The lab's own folder beside the summary file: its state file there is what --down reads after a killed run. */
const labDirFor = (out: string) => join(dirname(resolve(out)), 'netconf');

export async function netconfLabCli(args: NetconfLabArgs, fail: Fail): Promise<void> {
  const out = args.out ?? DEFAULT_NETCONF_OUT;
  if (args.down) {
    const removed = await teardownNetconfLab(netconfStateFileIn(labDirFor(out)));
    rmSync(out, { force: true });
    console.log(removed.length ? `NETCONF lab removed: ${removed.join(', ')}` : `no NETCONF lab was up (recorded in ${labDirFor(out)}); nothing to remove`);
    return;
  }
  const missing = netconfLabUnavailable();
  if (missing) fail(missing, 1);
  mkdirSync(dirname(resolve(out)), { recursive: true });
  const lab = await startNetconfLab({ dir: labDirFor(out) });
  const summary = { id: lab.id, device: lab.node.name, ssh: lab.ssh, namespace: lab.node.namespace, inventory: lab.inventoryPath, known_hosts: lab.knownHostsPath };
  writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(`NETCONF lab up: ${lab.node.name} (netconfd --target=candidate, namespace ${lab.node.namespace}) ssh ${lab.ssh}, subsystem netconf`);
  console.log(`  device inventory ${lab.inventoryPath} (platform: netconf); written to ${out}`);
  console.log(`  start a relay on it with: DEVICE_INVENTORY=${lab.inventoryPath} npm run relay`);
  console.log(`  an AD000002 alert for device ${lab.node.name}, neighbor 10.0.0.2, device_platform netconf runs the RAW's netconf variants`);
  console.log('  Ctrl-C stops the lab and removes everything it made (after a killed run: npm run lab -- --netconf --down)');
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void lab
      .stop()
      .then(() => rmSync(out, { force: true }))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`NETCONF lab: teardown failed (${errorText(error)}); run npm run lab -- --netconf --down`);
          process.exit(1);
        },
      );
  };
  // Nothing else holds the event loop (the lab's daemons are detached): this keeps the command up until a signal.
  setInterval(() => {}, 2 ** 30);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
