import type { PlatformName } from './inventory';
import { NETCONF_PLATFORM } from './netconf/platform';

/**
 * What differs between router operating systems once logged in: how the prompt looks, how paging
 * is turned off, which output filters exist, which output means "refused", and how a failed change
 * is undone. Only FRR is exercised against the real thing here (the FRR lab); the IOS-family and EOS
 * dialects follow their vendors' documented CLI. NETCONF devices have no CLI: see netconf/platform.ts.
 */
export type RollbackStrategy =
  /** Snapshot the running configuration, then apply the difference back (FRR 8.4 has no commit/rollback). */
  | 'reapply-snapshot'
  /** `copy running-config <archive>` before, `configure replace <archive> force` after a failure. */
  | 'configure-replace'
  /** `checkpoint` before, `rollback running-config checkpoint` after a failure. */
  | 'checkpoint'
  /** A configuration session: `commit` when every line took, `abort` otherwise (nothing reaches the running config). */
  | 'config-session'
  /** NETCONF: locked candidate, validate, `<commit><confirmed/>`, read back; the device reverts unless confirmed. */
  | 'confirmed-commit';

export interface Platform {
  name: PlatformName;
  /** Sent once after login: no paging, no line wrapping. */
  sessionSetup: string[];
  /** Output filters the device understands after `|`. */
  pipes: string[];
  /** A line meaning the device did not understand the command (exec). */
  syntaxError: RegExp;
  /** A line meaning the device refused a configuration line (any refusal, not only syntax). */
  configError: RegExp;
  rollback: RollbackStrategy;
  /** What a failed change leaves behind, in the words docs/real-routers.md uses. */
  guarantee: string;
  /** Advice when a command uses something this platform lacks. */
  hints: Array<{ test: RegExp; say: string }>;
  /**
   * After an interrupted command: a harmless line whose answer carries `token` in a form the terminal's
   * own echo of the line cannot (so a prompt printed before the device is free again is not taken for
   * it). Without one, an interrupted session is never trusted again: it is closed and replaced.
   */
  syncProbe?: (token: string) => { line: string; answer: RegExp };
}

const IOS_SYNTAX = /^\s*% ?(Invalid input|Incomplete command|Ambiguous command|Unknown command|Invalid command)/m;

const ios = (name: 'ios' | 'iosxe'): Platform => ({
  name,
  sessionSetup: ['terminal length 0', 'terminal width 0'],
  pipes: ['include', 'exclude', 'begin', 'section', 'count'],
  syntaxError: IOS_SYNTAX,
  configError: /^\s*% (?!Warning)/m,
  rollback: 'configure-replace',
  guarantee:
    'the running configuration is archived before the change and restored with `configure replace … force` if a line fails, then read back and compared',
  hints: [],
});

export const PLATFORM: Record<PlatformName, Platform> = {
  ios: ios('ios'),
  iosxe: ios('iosxe'),
  nxos: {
    name: 'nxos',
    sessionSetup: ['terminal length 0', 'terminal width 511'],
    pipes: ['include', 'exclude', 'begin', 'section', 'count'],
    syntaxError: IOS_SYNTAX,
    configError: /^\s*(% (?!Warning)|ERROR:)/m,
    rollback: 'checkpoint',
    guarantee: 'a checkpoint is taken before the change and rolled back to if a line fails, then the running configuration is read back and compared',
    hints: [],
  },
  eos: {
    name: 'eos',
    sessionSetup: ['terminal length 0', 'terminal width 32767'],
    pipes: ['include', 'exclude', 'begin', 'section', 'count'],
    syntaxError: IOS_SYNTAX,
    configError: /^\s*% (?!Warning)/m,
    rollback: 'config-session',
    guarantee: 'the lines go into a configuration session that is committed only if every line is accepted, otherwise aborted: nothing partial reaches the running configuration',
    hints: [],
  },
  frr: {
    name: 'frr',
    sessionSetup: ['terminal length 0'],
    pipes: ['include'],
    // FRR answers rc 0 to some of these; the words are what count.
    syntaxError: /^% (Unknown command|Command incomplete|Ambiguous command|Unknown action|Invalid)/m,
    configError: /^% /m,
    rollback: 'reapply-snapshot',
    guarantee:
      'FRR 8.4 has no commit or rollback: the running configuration is read before the change and, if a line fails, the difference is applied back line by line, then read again and compared; an error says so if it does not match',
    hints: [
      { test: /\|\s*sec/i, say: 'FRR has no "| section": use "show running-config bgpd" or "| include"' },
      { test: /\|\s*(beg|exc|cou)/i, say: 'FRR only has "| include" after a command' },
      { test: /^show\s+ip\s+bgp\s+vpnv4\s+vrf\s+/i, say: 'FRR has no "show ip bgp vpnv4 vrf …": use "show bgp vrf NAME summary"' },
    ],
    // vtysh answers an unknown word with "% Unknown command: <word>" (it never reaches a daemon); the
    // echo is the bare word. Verified on FRR 8.4; vtysh has no `echo` command.
    syncProbe: (token) => ({ line: token, answer: new RegExp(`^% Unknown command: ${token}$`, 'm') }),
  },
  netconf: NETCONF_PLATFORM,
};

/** Why this platform cannot run `command` as written, or undefined when it can. */
export function grammarProblem(platform: Platform, command: string): string | undefined {
  for (const h of platform.hints) if (h.test.test(command)) return h.say;
  const pipes = command.split('|').slice(1);
  const first = pipes[0]?.trim().split(/\s+/)[0]?.toLowerCase();
  if (first && !platform.pipes.some((p) => p.startsWith(first))) {
    return `${platform.name} has no "| ${first}" (available: ${platform.pipes.map((p) => `| ${p}`).join(', ')})`;
  }
  return undefined;
}
