import { parseCommand, type GrammarNode } from './cli-parser';
import type { ConfigInterface, ConfigNeighbor, DeviceConfig } from './device';
import { ospfConfigNodes } from './ospf';

/**
 * Configuration mode. Lines run against a draft of the device configuration with IOS's
 * mode stack (config → config-router → config-router-af, config → config-if); a line
 * that the current mode does not know is tried in the parent modes, as IOS does.
 */
type Mode =
  | { name: 'config' }
  | { name: 'config-router' }
  | { name: 'config-router-af'; vrf?: string }
  | { name: 'config-if'; interface: string }
  | { name: 'config-router-ospf' };

type Outcome = { error?: string; mode?: Mode | 'end' };
type Node = GrammarNode<Outcome>;

export interface ConfigResult {
  ok: boolean;
  /** What a terminal session would show, prompt by prompt. */
  transcript: string;
  error?: string;
}

const PROMPT: Record<Mode['name'], string> = {
  config: '(config)',
  'config-router': '(config-router)',
  'config-router-af': '(config-router-af)',
  'config-if': '(config-if)',
  'config-router-ospf': '(config-router)',
};

function findNeighbor(config: DeviceConfig, address: string, vrf?: string): ConfigNeighbor | undefined {
  return config.bgp?.neighbors.find((n) => n.address === address && (n.vrf ?? '') === (vrf ?? ''));
}

const NO_REMOTE_AS = '% Specify remote-as or peer-group commands first';

function neighborNodes(config: DeviceConfig, vrf: string | undefined, negate: boolean): Node[] {
  const withNeighbor = (a: Record<string, string>, fn: (n: ConfigNeighbor) => void): Outcome => {
    const n = findNeighbor(config, a.ip!, vrf);
    if (!n) return { error: NO_REMOTE_AS };
    fn(n);
    return {};
  };
  return [
    {
      keyword: 'neighbor',
      children: [
        {
          param: { name: 'ip', kind: 'ipv4' },
          children: [
            { keyword: 'shutdown', run: (a) => withNeighbor(a, (n) => (n.shutdown = !negate)) },
            negate
              ? { keyword: 'description', run: (a) => withNeighbor(a, (n) => delete n.description) }
              : {
                  keyword: 'description',
                  children: [{ param: { name: 'text', kind: 'rest' }, run: (a) => withNeighbor(a, (n) => (n.description = a.text!)) }],
                },
            { keyword: 'activate', run: (a) => withNeighbor(a, () => {}) },
            // Changing an existing neighbor's AS (AD000006's repair); a new neighbor is not created here.
            ...(negate ? [] : [{ keyword: 'remote-as', children: [{ param: { name: 'as', kind: 'number' as const }, run: (a: Record<string, string>) => withNeighbor(a, (n) => (n.remote_as = Number(a.as))) }] }]),
            negate
              ? { keyword: 'update-source', run: (a) => withNeighbor(a, (n) => delete n.update_source), children: [{ param: { name: 'if', kind: 'word' }, run: (a) => withNeighbor(a, (n) => delete n.update_source) }] }
              : { keyword: 'update-source', children: [{ param: { name: 'if', kind: 'word' }, run: (a) => withNeighbor(a, (n) => (n.update_source = a.if!)) }] },
            // TCP MD5 (AD000009): `password [0|7] KEY`; the lab keeps the key as typed, as IOS without password-encryption shows it.
            negate
              ? { keyword: 'password', run: (a) => withNeighbor(a, (n) => delete n.password), children: [{ param: { name: 'key', kind: 'rest' }, run: (a) => withNeighbor(a, (n) => delete n.password) }] }
              : { keyword: 'password', children: [{ param: { name: 'key', kind: 'rest' }, run: (a) => withNeighbor(a, (n) => (n.password = a.key!.replace(/^[07] (?=\S)/, ''))) }] },
            negate
              ? { keyword: 'maximum-prefix', run: (a) => withNeighbor(a, (n) => delete n.maximum_prefix) }
              : {
                  keyword: 'maximum-prefix',
                  children: [{ param: { name: 'max', kind: 'number' }, run: (a) => withNeighbor(a, (n) => (n.maximum_prefix = Number(a.max))) }],
                },
          ],
        },
      ],
    },
  ];
}

/** `ip ospf mtu-ignore` on an interface (AD000008's repair): OSPF stops comparing the neighbor's MTU. */
const ospfMtuIgnore = (run: () => Outcome): Node => ({ keyword: 'ip', children: [{ keyword: 'ospf', children: [{ keyword: 'mtu-ignore', run }] }] });

function setMtu(i: ConfigInterface, mtu: number): Outcome {
  if (!Number.isInteger(mtu) || mtu < 576 || mtu > 9216) return { error: '% Invalid input detected: mtu range is 576-9216' };
  if (mtu === 1500) delete i.mtu;
  else i.mtu = mtu;
  return {};
}

const ospfNodes = (config: DeviceConfig) => ospfConfigNodes<Outcome>(config, () => ({ mode: { name: 'config-router-ospf' } }), (error) => ({ error }), () => ({}));

const exitNodes = (parent: Mode | 'end'): Node[] => [
  { keyword: 'exit', run: () => ({ mode: parent }) },
  { keyword: 'end', run: () => ({ mode: 'end' }) },
];

function grammarFor(mode: Mode, config: DeviceConfig): Node[] {
  switch (mode.name) {
    case 'config':
      return [
        {
          keyword: 'router',
          children: [
            ospfNodes(config).router,
            {
              keyword: 'bgp',
              children: [
                {
                  param: { name: 'as', kind: 'number' },
                  run: (a) => {
                    if (!config.bgp) return { error: '% BGP is not configured on this device; the lab does not create new BGP processes' };
                    if (Number(a.as) !== config.bgp.as) return { error: `% BGP is already running; AS is ${config.bgp.as}` };
                    return { mode: { name: 'config-router' } };
                  },
                },
              ],
            },
          ],
        },
        {
          keyword: 'interface',
          children: [{ param: { name: 'if', kind: 'interface' }, run: (a) => ({ mode: { name: 'config-if', interface: a.if! } }) }],
        },
        ...exitNodes('end'),
      ];
    case 'config-router':
    case 'config-router-af': {
      const vrf = mode.name === 'config-router-af' ? mode.vrf : undefined;
      const nodes: Node[] = [
        ...neighborNodes(config, vrf, false),
        { keyword: 'no', children: neighborNodes(config, vrf, true) },
        { keyword: 'bgp', children: [{ keyword: 'log-neighbor-changes', run: () => ({}) }] },
      ];
      if (mode.name === 'config-router') {
        const enterAf = (vrfName?: string): Outcome => {
          if (vrfName && !config.vrfs.some((v) => v.name === vrfName)) return { error: `% VRF ${vrfName} does not exist` };
          return { mode: { name: 'config-router-af', ...(vrfName ? { vrf: vrfName } : {}) } };
        };
        const vrfNode: Node = { keyword: 'vrf', children: [{ param: { name: 'vrf', kind: 'word' }, run: (a) => enterAf(a.vrf) }] };
        nodes.push(
          {
            keyword: 'address-family',
            children: [
              { keyword: 'ipv4', run: () => enterAf(), children: [{ keyword: 'unicast', run: () => enterAf(), children: [vrfNode] }, vrfNode] },
            ],
          },
          ...exitNodes({ name: 'config' }),
        );
      } else {
        nodes.push({ keyword: 'exit-address-family', run: () => ({ mode: { name: 'config-router' } }) }, ...exitNodes({ name: 'config-router' }));
      }
      return nodes;
    }
    case 'config-router-ospf':
      return [...ospfNodes(config).inRouter, ...exitNodes({ name: 'config' })];
    case 'config-if': {
      const target = () => config.interfaces.find((i) => i.name === mode.interface)!;
      return [
        { keyword: 'shutdown', run: () => ((target().shutdown = true), {}) },
        { keyword: 'description', children: [{ param: { name: 'text', kind: 'rest' }, run: (a) => ((target().description = a.text!), {}) }] },
        { keyword: 'mtu', children: [{ param: { name: 'mtu', kind: 'number' }, run: (a) => setMtu(target(), Number(a.mtu)) }] },
        ospfMtuIgnore(() => ((target().ospf_mtu_ignore = true), {})),
        {
          keyword: 'no',
          children: [
            { keyword: 'shutdown', run: () => ((target().shutdown = false), {}) },
            { keyword: 'description', run: () => (delete target().description, {}) },
            { keyword: 'mtu', run: () => (delete target().mtu, {}), children: [{ param: { name: 'mtu', kind: 'number' }, run: () => (delete target().mtu, {}) }] },
            ospfMtuIgnore(() => (delete target().ospf_mtu_ignore, {})),
          ],
        },
        ...exitNodes({ name: 'config' }),
      ];
    }
  }
}

function parents(mode: Mode): Mode[] {
  if (mode.name === 'config-router-af') return [{ name: 'config-router' }, { name: 'config' }];
  if (mode.name === 'config') return [];
  return [{ name: 'config' }];
}

/**
 * Applies `lines` to `config` (mutated). Stops at the first rejected line; the caller
 * discards the draft in that case so a bad change list changes nothing.
 */
export function applyConfigLines(config: DeviceConfig, lines: readonly string[]): ConfigResult {
  const host = config.hostname;
  const out = ['Enter configuration commands, one per line.  End with CNTL/Z.'];
  let mode: Mode = { name: 'config' };
  const interfaces = config.interfaces.map((i) => i.name);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    // Automation commonly wraps the change in `configure terminal`; accept it as the opening line only.
    if (index === 0 && /^conf(i(g(u(r(e)?)?)?)?)?\s+t(e(r(m(i(n(a(l)?)?)?)?)?)?)?$/i.test(line)) continue;
    if (line === '' || line.startsWith('!')) continue;
    out.push(`${host}${PROMPT[mode.name]}#${raw}`);
    let result: Outcome | undefined;
    let error: string | undefined;
    for (const candidate of [mode, ...parents(mode)]) {
      const parsed = parseCommand(grammarFor(candidate, config), line, { interfaces });
      if (parsed.ok) {
        result = parsed.run();
        if (!result.mode && !result.error && candidate !== mode) result = { ...result, mode: candidate };
        break;
      }
      error ??= parsed.error;
    }
    if (!result) {
      const message = error!.includes('^') ? error!.split('\n').slice(1).join('\n') : error!;
      const caretLine = error!.includes('^') ? `${' '.repeat(host.length + PROMPT[mode.name].length + 1)}${message}` : message;
      out.push(caretLine);
      return { ok: false, transcript: out.join('\n'), error: `line ${index + 1} "${line}" rejected: ${message.split('\n').pop()}` };
    }
    if (result.error) {
      out.push(result.error);
      return { ok: false, transcript: out.join('\n'), error: `line ${index + 1} "${line}" rejected: ${result.error}` };
    }
    if (result.mode === 'end') {
      out.push(`${host}#`);
      return { ok: true, transcript: out.join('\n') };
    }
    if (result.mode) mode = result.mode;
  }
  out.push(`${host}${PROMPT[mode.name]}#end`, `${host}#`);
  return { ok: true, transcript: out.join('\n') };
}
