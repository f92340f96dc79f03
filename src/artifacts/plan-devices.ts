import { deviceKey } from '../devices/inventory';
import { checkFormat } from './formats';
import type { PlanDeviceDecl, RepairActionWorkflow } from './schema-raw';

/** What the relay knows of every device's addresses: the inventory's `addresses` (interface → address/length). */
export interface AddressBook {
  devices(): ReadonlyArray<{ name: string; addresses: Readonly<Record<string, string>> }>;
}

/** A plan role as the relay found it: the device, or why none. */
export type FoundDevice = { role: string; device: string; how: string } | { role: string; problem: string };

const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const split = (prefix: string) => {
  const [ip, len] = prefix.split('/') as [string, string];
  return { ip, len: Number(len) };
};
const sameSubnet = (a: string, b: string, len: number) => {
  if (len === 0) return true;
  const mask = len === 32 ? 0xffffffff : (~(0xffffffff >>> len)) >>> 0;
  return ((toInt(a) & mask) >>> 0) === ((toInt(b) & mask) >>> 0);
};

function findOne(decl: PlanDeviceDecl, value: string, incidentDevice: string, book: AddressBook): FoundDevice {
  const own = deviceKey(incidentDevice);
  const devices = book.devices();
  let matches: string[];
  let how: string;
  if (decl.find === 'address_owner') {
    if (!checkFormat('ipv4', value)) return { role: decl.role, problem: `${decl.input} "${value}" is not an IPv4 address` };
    matches = devices.filter((d) => Object.values(d.addresses).some((p) => split(p).ip === value)).map((d) => d.name);
    how = `the inventory device with address ${value} (${decl.input})`;
  } else {
    if (!checkFormat('interface', value)) return { role: decl.role, problem: `${decl.input} "${value}" is not an interface name` };
    const mine = devices.find((d) => deviceKey(d.name) === own)?.addresses[value];
    if (!mine) return { role: decl.role, problem: `the inventory lists no address for ${incidentDevice} ${value}, so the far end of its link is unknown` };
    const { ip, len } = split(mine);
    matches = devices
      .filter((d) => deviceKey(d.name) !== own && Object.values(d.addresses).some((p) => split(p).ip !== ip && split(p).len === len && sameSubnet(split(p).ip, ip, len)))
      .map((d) => d.name);
    how = `the far end of ${incidentDevice} ${value} (${mine}) in the inventory`;
  }
  const others = matches.filter((m) => deviceKey(m) !== own);
  if (others.length === 1) return { role: decl.role, device: others[0]!, how };
  if (others.length === 0) return { role: decl.role, problem: matches.length ? `${how} is the incident's own device` : `no inventory device is ${how}` };
  return { role: decl.role, problem: `more than one inventory device is ${how}: ${others.join(', ')}` };
}

/**
 * The devices a RAW's plan may change besides the incident's own, found from the alert's values (the
 * RAW's declared inputs, checked against their format) and the inventory's addresses. The model never
 * names one: a plan naming a device not found here is refused.
 */
export function findPlanDevices(
  raw: Pick<RepairActionWorkflow, 'plan_devices'>,
  vars: Readonly<Record<string, string | undefined>>,
  incidentDevice: string,
  book: AddressBook | undefined,
): FoundDevice[] {
  return raw.plan_devices.map((decl) => {
    const value = vars[decl.input];
    if (!value) return { role: decl.role, problem: `the alert carries no ${decl.input}` };
    if (!book) return { role: decl.role, problem: 'the relay has no device inventory with addresses (DEVICE_INVENTORY)' };
    return findOne(decl, value, incidentDevice, book);
  });
}
