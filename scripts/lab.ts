/**
 * The device lab.
 *   npm run lab [-- --port 4310 --host 127.0.0.1 --inventory harness/ios-lab/inventory.yaml --converge-delay-ms 4000]
 *   npm run lab -- inject AD000002 --device R1 --neighbor 10.0.0.2 [--vrf CUST-A]
 *   npm run lab -- inject AD000003 --device R1 --interface GigabitEthernet2
 *   npm run lab -- inject bgp_peer_unreachable|interface_link_down|device_unreachable --device R1 …
 *   npm run lab -- exec --device R1 "show ip bgp summary"
 *   npm run lab -- clear [--device R1] | reset | devices
 *   npm run lab -- --frr [--routers N] [--out .lab/frr.json] [--relay URL] [--port 4320]   real FRR routers (root)
 *   npm run lab -- --frr inject AD000002 --device R1 --neighbor 10.0.0.2 | --frr clear …  | --frr --down
 *   npm run lab -- --netconf [--out .lab/netconf.json] | --netconf --down   a NETCONF device (netconfd, root)
 * Commands other than start talk to a running lab: --url, else LAB_URL, else http://127.0.0.1:4310.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { DeviceToolError } from '../src/core/changes/device-contract';
import { createMcpDeviceTools } from '../src/adapters/device-tools/mcp-device-tools';
import { createLabAdminClient, LabAdminError } from '../harness/ios-lab/admin-client';
import { FAULT_ALIASES, FAULT_KINDS } from '../src/runbooks/fault-spec';
import { InventoryError } from '../harness/ios-lab/inventory';
import { DEFAULT_LAB_PORT, startLab } from '../harness/ios-lab/server';
import { cli } from './cli';
import { frrLabCli } from './lab-frr';
import { netconfLabCli } from './lab-netconf';
import { errorText } from '../src/core/error-body';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: String(DEFAULT_LAB_PORT) },
    inventory: { type: 'string' },
    'converge-delay-ms': { type: 'string' },
    device: { type: 'string' },
    neighbor: { type: 'string' },
    vrf: { type: 'string' },
    interface: { type: 'string' },
    frr: { type: 'boolean' },
    netconf: { type: 'boolean' },
    routers: { type: 'string' },
    out: { type: 'string' },
    down: { type: 'boolean' },
    all: { type: 'boolean' },
    lab: { type: 'string' },
    relay: { type: 'string' },
    secret: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

const [command = 'start', ...rest] = positionals;
const url = values.url ?? process.env.LAB_URL ?? `http://127.0.0.1:${DEFAULT_LAB_PORT}`;

function usage(): never {
  console.log(`usage:
  npm run lab [-- --port ${DEFAULT_LAB_PORT} --host 127.0.0.1 --inventory <file> --converge-delay-ms 4000]
  npm run lab -- inject <fault> --device R1 [--neighbor 10.0.0.2] [--vrf CUST-A] [--interface Gi2]
      faults: ${[...Object.keys(FAULT_ALIASES), ...FAULT_KINDS].join(', ')}
  npm run lab -- exec --device R1 "show ip bgp summary"
  npm run lab -- clear [--device R1] | reset | devices
  npm run lab -- --frr [--routers 2] [--out .lab/frr.json] [--relay http://127.0.0.1:8080] [--port 4320]
  npm run lab -- --frr inject <fault> --device R1 [--neighbor 10.0.0.2] [--interface eth-R2]   (real configuration; clear: every fault back)
  npm run lab -- --frr --down [--all | --lab frl1a2b]   (removes a lab that was killed; --all: every FRR lab on this machine; --lab: that one, even without its state file)
  npm run lab -- --netconf [--out .lab/netconf.json]   (one NETCONF device, netconfd behind sshd; prints its DEVICE_INVENTORY; Ctrl-C removes it)
  npm run lab -- --netconf --down [--out .lab/netconf.json]   (removes a NETCONF lab that was killed)
  (--url or LAB_URL selects the running lab; default ${`http://127.0.0.1:${DEFAULT_LAB_PORT}`})`);
  process.exit(0);
}

async function main(): Promise<void> {
  if (values.help) usage();
  if (values.netconf) {
    const { fail } = cli('lab', 'npm run lab -- --help');
    if (values.frr) fail('--frr and --netconf are two labs; start them one at a time');
    if (command !== 'start') fail(`--netconf takes no command (${command}): its device is changed through the relay or the device tools`);
    return netconfLabCli(values, fail);
  }
  if (values.frr) {
    const { fail } = cli('lab', 'npm run lab -- --help');
    return frrLabCli(
      {
        ...values,
        // --port is the device tool server's here; the simulated lab's default does not apply.
        port: values.port !== String(DEFAULT_LAB_PORT) ? values.port : undefined,
        ...(command !== 'start' ? { command } : {}),
        // inject <fault>: the definition or fault kind named after the command.
        ...(rest[0] ? { fault: rest[0] } : {}),
      },
      fail,
    );
  }
  const admin = createLabAdminClient(url);
  switch (command) {
    case 'start': {
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${values.port} is not a port number`);
      const delay = values['converge-delay-ms'] !== undefined ? Number(values['converge-delay-ms']) : undefined;
      if (delay !== undefined && !(delay >= 0)) throw new Error('--converge-delay-ms must be a number of milliseconds');
      const lab = await startLab({
        host: values.host,
        port,
        ...(values.inventory ? { inventoryPath: values.inventory } : {}),
        ...(delay !== undefined ? { convergeDelayMs: delay } : {}),
        logger: pino({ level: process.env.LOG_LEVEL ?? 'info' }),
      });
      console.log(`device lab: MCP ${lab.mcpUrl}  health ${lab.url}/health  devices ${lab.lab.devices().map((d) => d.hostname).join(', ')}`);
      const stop = () => void lab.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return;
    }
    case 'inject': {
      const fault = rest[0];
      if (!fault || !values.device) throw new LabAdminError('inject needs a fault and --device, e.g. inject AD000002 --device R1 --neighbor 10.0.0.2');
      const spec: Record<string, unknown> = { fault, device: values.device };
      if (values.neighbor) spec.neighbor = values.neighbor;
      if (values.vrf) spec.vrf = values.vrf;
      if (values.interface) spec.interface = values.interface;
      console.log(await admin.inject(spec));
      return;
    }
    case 'clear':
      console.log(await admin.clear(values.device));
      return;
    case 'reset':
      console.log(await admin.reset());
      return;
    case 'devices':
      for (const d of await admin.devices()) console.log(`${d.hostname.padEnd(8)} ${d.mgmt_ip}`);
      return;
    case 'exec': {
      const cli = rest.join(' ');
      if (!values.device || !cli) throw new LabAdminError('exec needs --device and a show command');
      const tools = createMcpDeviceTools(new URL('/mcp', url).toString());
      try {
        console.log(await tools.execCli(values.device, cli));
      } finally {
        await tools.close();
      }
      return;
    }
    default:
      usage();
  }
}

main().catch((e: unknown) => {
  const known = e instanceof LabAdminError || e instanceof DeviceToolError || e instanceof InventoryError;
  console.error(known ? errorText(e) : e);
  process.exitCode = 1;
});
