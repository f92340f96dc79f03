import type { ConfigInterface, Device } from './device';
import { bgpAge, clockString, logTimestamp, longUptime, prefixLengthToMask, shortInterfaceName } from './ios-format';
import { ospfBlock } from './ospf';

/** Output of the non-BGP show commands, laid out as IOS-XE 17 prints them. */

export function showVersion(device: Device, now: number): string {
  const inv = device.inventory;
  const [major = '17', minor = '9', patch = '4a'] = inv.version.split('.');
  const gig = device.config.interfaces.filter((i) => i.name.startsWith('GigabitEthernet')).length;
  return [
    `Cisco IOS XE Software, Version ${major}.${minor.padStart(2, '0')}.${patch.replace(/^(\d)(?!\d)/, '0$1')}`,
    `Cisco IOS Software [Cupertino], Virtual XE Software (X86_64_LINUX_IOSD-UNIVERSALK9-M), Version ${inv.version}, RELEASE SOFTWARE (fc3)`,
    'Technical Support: http://www.cisco.com/techsupport',
    'Copyright (c) 1986-2023 by Cisco Systems, Inc.',
    'Compiled Fri 20-Oct-23 10:44 by mcpre',
    '',
    '',
    'Cisco IOS-XE software, Copyright (c) 2005-2023 by cisco Systems, Inc.',
    'All rights reserved.  Certain components of Cisco IOS-XE software are',
    'licensed under the GNU General Public License ("GPL") Version 2.0.',
    '',
    'ROM: IOS-XE ROMMON',
    '',
    `${device.config.hostname} uptime is ${longUptime(now - device.bootAt)}`,
    `Uptime for this control processor is ${longUptime(now - device.bootAt + 120_000)}`,
    'System returned to ROM by reload',
    'System image file is "bootflash:packages.conf"',
    'Last reload reason: reload',
    '',
    '',
    'Technology Package License Information:',
    '',
    '------------------------------------------------------------------------------',
    'Technology-package                                     Technology-package',
    'Current                        Type                       Next reboot',
    '------------------------------------------------------------------------------',
    'network-advantage  Smart License                 network-advantage',
    'dna-advantage      Subscription Smart License    dna-advantage',
    '',
    `cisco ${inv.model} (VXE) processor (revision VXE) with 2028465K/3075K bytes of memory.`,
    `Processor board ID ${inv.serial}`,
    'Router operating mode: Autonomous',
    `${gig} Gigabit Ethernet interfaces`,
    '32768K bytes of non-volatile configuration memory.',
    '3965316K bytes of physical memory.',
    '11526144K bytes of virtual hard disk at bootflash:.',
    '',
    'Configuration register is 0x2102',
  ].join('\n');
}

function statusWords(device: Device, i: ConfigInterface): { status: string; protocol: string } {
  const op = device.interfaces.get(i.name);
  if (!op || op.status === 'admin-down') return { status: 'administratively down', protocol: 'down' };
  return op.status === 'up' ? { status: 'up', protocol: 'up' } : { status: 'down', protocol: 'down' };
}

export function showIpInterfaceBrief(device: Device): string {
  const lines = ['Interface              IP-Address      OK? Method Status                Protocol'];
  for (const i of device.config.interfaces) {
    const { status, protocol } = statusWords(device, i);
    lines.push(
      i.name.padEnd(23) + (i.ipv4?.split('/')[0] ?? 'unassigned').padEnd(16) + 'YES ' + (i.ipv4 ? 'NVRAM' : 'unset').padEnd(7) + status.padEnd(22) + protocol,
    );
  }
  return lines.join('\n');
}

export function showInterfaces(device: Device, now: number, only?: string): string {
  const list = device.config.interfaces.filter((i) => only === undefined || i.name === only);
  return list
    .map((i) => {
      const op = device.interfaces.get(i.name);
      const { status, protocol } = statusWords(device, i);
      const loop = i.name.startsWith('Loopback');
      const mac = i.mac ?? '5254.00ff.0000';
      const up = protocol === 'up';
      const lines = [
        `${i.name} is ${status}, line protocol is ${protocol} `,
        loop ? '  Hardware is Loopback' : `  Hardware is vNIC, address is ${mac} (bia ${mac})`,
      ];
      if (i.description) lines.push(`  Description: ${i.description}`);
      if (i.ipv4) lines.push(`  Internet address is ${i.ipv4}`);
      lines.push(
        loop ? '  MTU 1514 bytes, BW 8000000 Kbit/sec, DLY 5000 usec, ' : `  MTU ${i.mtu ?? 1500} bytes, BW 1000000 Kbit/sec, DLY 10 usec, `,
        '     reliability 255/255, txload 1/255, rxload 1/255',
        loop ? '  Encapsulation LOOPBACK, loopback not set' : '  Encapsulation ARPA, loopback not set',
        '  Keepalive set (10 sec)',
      );
      if (!loop) {
        lines.push(
          up ? '  Full Duplex, 1000Mbps, link type is auto, media type is Virtual' : '  Auto Duplex, Auto Speed, link type is auto, media type is Virtual',
          '  output flow-control is unsupported, input flow-control is unsupported',
          '  ARP type: ARPA, ARP Timeout 04:00:00',
        );
      }
      const since = op ? bgpAge(now - op.since) : 'never';
      lines.push(
        up ? '  Last input 00:00:01, output 00:00:00, output hang never' : `  Last input ${since}, output ${since}, output hang never`,
        '  Last clearing of "show interface" counters never',
        '  Input queue: 0/375/0/0 (size/max/drops/flushes); Total output drops: 0',
        '  Queueing strategy: fifo',
        '  Output queue: 0/40 (size/max)',
        `  5 minute input rate ${up && !loop ? 2000 : 0} bits/sec, ${up && !loop ? 3 : 0} packets/sec`,
        `  5 minute output rate ${up && !loop ? 1000 : 0} bits/sec, ${up && !loop ? 2 : 0} packets/sec`,
      );
      return lines.join('\n');
    })
    .join('\n');
}

function interfaceBlock(i: ConfigInterface): string[] {
  const lines = [`interface ${i.name}`];
  if (i.description) lines.push(` description ${i.description}`);
  if (i.vrf) lines.push(` vrf forwarding ${i.vrf}`);
  if (i.ipv4) {
    const [addr = '', len = '32'] = i.ipv4.split('/');
    lines.push(` ip address ${addr} ${prefixLengthToMask(Number(len))}`);
  } else {
    lines.push(' no ip address');
  }
  if (i.mtu !== undefined) lines.push(` mtu ${i.mtu}`);
  if (i.ospf_mtu_ignore) lines.push(' ip ospf mtu-ignore');
  if (i.shutdown) lines.push(' shutdown');
  if (!i.name.startsWith('Loopback')) lines.push(' negotiation auto');
  return lines;
}

function bgpBlock(device: Device): string[] {
  const bgp = device.config.bgp;
  if (!bgp) return [];
  const global = bgp.neighbors.filter((n) => !n.vrf);
  const lines = [`router bgp ${bgp.as}`, ` bgp router-id ${bgp.router_id}`, ' bgp log-neighbor-changes'];
  for (const n of global) {
    lines.push(` neighbor ${n.address} remote-as ${n.remote_as}`);
    if (n.description) lines.push(` neighbor ${n.address} description ${n.description}`);
    if (n.password) lines.push(` neighbor ${n.address} password ${n.password}`);
    if (n.update_source) lines.push(` neighbor ${n.address} update-source ${n.update_source}`);
    if (n.shutdown) lines.push(` neighbor ${n.address} shutdown`);
  }
  lines.push(' !', ' address-family ipv4');
  for (const net of bgp.networks) {
    const [addr = '', len = '32'] = net.split('/');
    lines.push(`  network ${addr} mask ${prefixLengthToMask(Number(len))}`);
  }
  for (const n of global) {
    lines.push(`  neighbor ${n.address} activate`);
    if (n.maximum_prefix !== undefined) lines.push(`  neighbor ${n.address} maximum-prefix ${n.maximum_prefix}`);
  }
  lines.push(' exit-address-family');
  for (const vrf of device.config.vrfs) {
    const inVrf = bgp.neighbors.filter((n) => n.vrf === vrf.name);
    lines.push(' !', ` address-family ipv4 vrf ${vrf.name}`);
    for (const n of inVrf) {
      lines.push(`  neighbor ${n.address} remote-as ${n.remote_as}`);
      if (n.description) lines.push(`  neighbor ${n.address} description ${n.description}`);
      if (n.shutdown) lines.push(`  neighbor ${n.address} shutdown`);
      lines.push(`  neighbor ${n.address} activate`);
      if (n.maximum_prefix !== undefined) lines.push(`  neighbor ${n.address} maximum-prefix ${n.maximum_prefix}`);
    }
    lines.push(' exit-address-family');
  }
  return lines;
}

export function runningConfigLines(device: Device): string[] {
  const change = device.lastChange;
  const lines = [
    '!',
    change
      ? `! Last configuration change at ${clockString(change.at).replace(/\.\d{3}/, '')} by ${change.by}`
      : `! Last configuration change at ${clockString(device.bootAt + 300_000).replace(/\.\d{3}/, '')}`,
    '!',
    'version 17.9',
    'service timestamps debug datetime msec',
    'service timestamps log datetime msec localtime show-timezone',
    'platform qfp utilization monitor load 80',
    'platform punt-keepalive disable-kernel-core',
    'platform console virtual',
    '!',
    `hostname ${device.config.hostname}`,
    '!',
    'boot-start-marker',
    'boot-end-marker',
    '!',
  ];
  for (const vrf of device.config.vrfs) {
    lines.push(
      `vrf definition ${vrf.name}`,
      ` rd ${vrf.rd}`,
      ' !',
      ' address-family ipv4',
      `  route-target export ${vrf.rd}`,
      `  route-target import ${vrf.rd}`,
      ' exit-address-family',
      '!',
    );
  }
  lines.push('no aaa new-model', '!', 'ip domain name lab.example.net', '!', 'login on-success log', '!');
  for (const i of device.config.interfaces) lines.push(...interfaceBlock(i), '!');
  lines.push(...ospfBlock(device), ...bgpBlock(device));
  lines.push(
    '!',
    'ip forward-protocol nd',
    'no ip http server',
    'no ip http secure-server',
    'ip ssh version 2',
    '!',
    'logging buffered 102400',
    '!',
    'line con 0',
    ' stopbits 1',
    'line vty 0 4',
    ' login local',
    ' transport input ssh',
    '!',
    'end',
  );
  return lines;
}

export function showRunningConfig(device: Device): string {
  const body = runningConfigLines(device);
  const bytes = body.join('\n').length + 1;
  return ['Building configuration...', '', `Current configuration : ${bytes} bytes`, ...body].join('\n');
}

export function showRunningConfigInterface(device: Device, name: string): string {
  const i = device.config.interfaces.find((x) => x.name === name)!;
  const body = [...interfaceBlock(i), 'end'];
  return ['Building configuration...', '', `Current configuration : ${body.join('\n').length + 1} bytes`, '!', ...body].join('\n');
}

export function showLogging(device: Device): string {
  const header = [
    'Syslog logging: enabled (0 messages dropped, 0 messages rate-limited, 0 flushes, 0 overruns, xml disabled, filtering disabled)',
    '',
    'No Active Message Discriminator.',
    '',
    '',
    'No Inactive Message Discriminator.',
    '',
    '',
    '    Console logging: disabled',
    '    Monitor logging: level debugging, 0 messages logged, xml disabled,',
    '                     filtering disabled',
    `    Buffer logging:  level debugging, ${device.logs.length} messages logged, xml disabled,`,
    '                    filtering disabled',
    '    Exception Logging: size (4096 bytes)',
    '    Count and timestamp logging messages: disabled',
    '    Persistent logging: disabled',
    '',
    'No active filter modules.',
    '',
    '    Trap logging: level informational, 0 message lines logged',
    '        Logging Source-Interface:       VRF Name:',
    '',
    'Log Buffer (102400 bytes):',
    '',
  ];
  return [...header, ...device.logs.map((l) => `${logTimestamp(l.at)}: ${l.text}`)].join('\n');
}

export function showClock(now: number): string {
  return clockString(now);
}

export function showVrf(device: Device): string {
  const lines = ['  Name                             Default RD            Protocols   Interfaces'];
  for (const v of device.config.vrfs) {
    const ifs = device.config.interfaces.filter((i) => i.vrf === v.name).map((i) => shortInterfaceName(i.name));
    lines.push(`  ${v.name.padEnd(33)}${v.rd.padEnd(22)}${'ipv4'.padEnd(12)}${ifs.join(' ')}`);
  }
  return lines.join('\n');
}
