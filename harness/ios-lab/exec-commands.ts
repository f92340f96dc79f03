import type { GrammarNode } from './cli-parser';
import type { Device, Network } from './device';
import { ospfExecNode } from './ospf';
import { showBgpNeighbors, showBgpSummary } from './show-bgp';
import {
  showClock,
  showInterfaces,
  showIpInterfaceBrief,
  showLogging,
  showRunningConfig,
  showRunningConfigInterface,
  showVersion,
  showVrf,
} from './show-system';

type Node = GrammarNode<string>;

const neighborsNode = (device: Device, now: number, vrf: (a: Record<string, string>) => string | undefined): Node => ({
  keyword: 'neighbors',
  run: (a) => showBgpNeighbors(device, now, { vrf: vrf(a) }, undefined),
  children: [{ param: { name: 'ip', kind: 'ipv4' }, run: (a) => showBgpNeighbors(device, now, { vrf: vrf(a) }, a.ip) }],
});

const afNodes = (device: Device, now: number, vrf: (a: Record<string, string>) => string | undefined): Node[] => [
  { keyword: 'summary', run: (a) => showBgpSummary(device, now, { vrf: vrf(a) }) },
  neighborsNode(device, now, vrf),
];

const byVrf = (a: Record<string, string>) => a.vrf;
const global = () => undefined;

/** The read-only commands the lab understands, as a grammar. Everything else is invalid input. */
export function execGrammar(device: Device, now: number, net?: Network): Node[] {
  const vrfBranch: Node = {
    keyword: 'vrf',
    children: [{ param: { name: 'vrf', kind: 'word' }, children: afNodes(device, now, byVrf) }],
  };
  return [
    {
      keyword: 'show',
      children: [
        { keyword: 'version', run: () => showVersion(device, now) },
        { keyword: 'clock', run: () => showClock(now) },
        { keyword: 'vrf', run: () => showVrf(device) },
        { keyword: 'logging', run: () => showLogging(device) },
        {
          keyword: 'running-config',
          run: () => showRunningConfig(device),
          children: [
            {
              keyword: 'interface',
              children: [{ param: { name: 'if', kind: 'interface' }, run: (a) => showRunningConfigInterface(device, a.if!) }],
            },
          ],
        },
        {
          keyword: 'interfaces',
          run: () => showInterfaces(device, now),
          children: [{ param: { name: 'if', kind: 'interface' }, run: (a) => showInterfaces(device, now, a.if) }],
        },
        {
          keyword: 'ip',
          children: [
            { keyword: 'interface', children: [{ keyword: 'brief', run: () => showIpInterfaceBrief(device) }] },
            ...(net ? [ospfExecNode(net, device)] : []),
            {
              keyword: 'bgp',
              children: [
                ...afNodes(device, now, global),
                { keyword: 'vpnv4', children: [vrfBranch] },
              ],
            },
          ],
        },
        {
          keyword: 'bgp',
          children: [
            { keyword: 'ipv4', children: [{ keyword: 'unicast', children: afNodes(device, now, global) }] },
            { keyword: 'vpnv4', children: [{ keyword: 'unicast', children: [vrfBranch] }] },
          ],
        },
      ],
    },
  ];
}
