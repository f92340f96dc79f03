import type { RawPlatform } from './schema-raw';

/**
 * What a platform's exec grammar allows beyond the read-only rule: the output filters it has after
 * `|`, and advice for forms it lacks. One definition: the device service refuses a command with it
 * before anything is sent, and the runbook validator refuses a RAW whose command a platform would.
 */
export interface DialectGrammar {
  name: RawPlatform;
  /** Output filters the device understands after `|`. */
  pipes: string[];
  /** Advice when a command uses something this platform lacks. */
  hints: Array<{ test: RegExp; say: string }>;
}

/** The read-only "show" forms a NETCONF device answers (each is an RPC there, not a CLI command). */
export const NETCONF_SHOW_FORMS = ['show running-config', 'show candidate-config', 'show capabilities'] as const;

const IOS_PIPES = ['include', 'exclude', 'begin', 'section', 'count'];

export const DIALECT_GRAMMAR: Record<RawPlatform, DialectGrammar> = {
  ios: { name: 'ios', pipes: IOS_PIPES, hints: [] },
  iosxe: { name: 'iosxe', pipes: IOS_PIPES, hints: [] },
  nxos: { name: 'nxos', pipes: IOS_PIPES, hints: [] },
  eos: { name: 'eos', pipes: IOS_PIPES, hints: [] },
  frr: {
    name: 'frr',
    pipes: ['include'],
    hints: [
      { test: /\|\s*sec/i, say: 'FRR has no "| section": use "show running-config bgpd" or "| include"' },
      { test: /\|\s*(beg|exc|cou)/i, say: 'FRR only has "| include" after a command' },
      { test: /^show\s+ip\s+bgp\s+vpnv4\s+vrf\s+/i, say: 'FRR has no "show ip bgp vpnv4 vrf …": use "show bgp vrf NAME summary"' },
    ],
  },
  netconf: {
    name: 'netconf',
    pipes: [],
    hints: [
      {
        test: /^(?!\s*show\s+(running-config|candidate-config|capabilities)\s*$)/i,
        say: `a NETCONF device answers only ${NETCONF_SHOW_FORMS.map((s) => `"${s}"`).join(', ')}`,
      },
    ],
  },
};

/** Why this platform cannot run `command` as written, or undefined when it can. */
export function grammarProblem(platform: DialectGrammar, command: string): string | undefined {
  for (const h of platform.hints) if (h.test.test(command)) return h.say;
  const pipes = command.split('|').slice(1);
  const first = pipes[0]?.trim().split(/\s+/)[0]?.toLowerCase();
  if (first && !platform.pipes.some((p) => p.startsWith(first))) {
    return `${platform.name} has no "| ${first}" (available: ${platform.pipes.map((p) => `| ${p}`).join(', ')})`;
  }
  return undefined;
}
