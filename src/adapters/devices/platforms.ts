import type { PlatformName } from './inventory';
import { DIALECT_GRAMMAR, type DialectGrammar } from '../../runbooks/dialect-grammar';
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

export interface Platform extends DialectGrammar {
  name: PlatformName;
  /** Sent once after login: no paging, no line wrapping. */
  sessionSetup: string[];
  /** A line meaning the device did not understand the command (exec). */
  syntaxError: RegExp;
  /** A line meaning the device refused a configuration line (any refusal, not only syntax). */
  configError: RegExp;
  rollback: RollbackStrategy;
  /** What a failed change leaves behind, in the words docs/real-routers.md uses. */
  guarantee: string;
  /**
   * After an interrupted command: a harmless line whose answer carries `token` in a form the terminal's
   * own echo of the line cannot (so a prompt printed before the device is free again is not taken for
   * it). Without one, an interrupted session is never trusted again: it is closed and replaced.
   */
  syncProbe?: (token: string) => { line: string; answer: RegExp };
}

const IOS_SYNTAX = /^\s*% ?(Invalid input|Incomplete command|Ambiguous command|Unknown command|Invalid command)/m;

const ios = (name: 'ios' | 'iosxe'): Platform => ({
  ...DIALECT_GRAMMAR[name],
  sessionSetup: ['terminal length 0', 'terminal width 0'],
  syntaxError: IOS_SYNTAX,
  configError: /^\s*% (?!Warning)/m,
  rollback: 'configure-replace',
  guarantee:
    'the running configuration is archived before the change and restored with `configure replace … force` if a line fails, then read back and compared',
});

/** One platform per dialect: its login and change behaviour; its exec grammar (pipes, hints) is the runbooks' (dialect-grammar.ts). */
export const PLATFORM: Record<PlatformName, Platform> = {
  ios: ios('ios'),
  iosxe: ios('iosxe'),
  nxos: {
    ...DIALECT_GRAMMAR.nxos,
    sessionSetup: ['terminal length 0', 'terminal width 511'],
    syntaxError: IOS_SYNTAX,
    configError: /^\s*(% (?!Warning)|ERROR:)/m,
    rollback: 'checkpoint',
    guarantee: 'a checkpoint is taken before the change and rolled back to if a line fails, then the running configuration is read back and compared',
  },
  eos: {
    ...DIALECT_GRAMMAR.eos,
    sessionSetup: ['terminal length 0', 'terminal width 32767'],
    syntaxError: IOS_SYNTAX,
    configError: /^\s*% (?!Warning)/m,
    rollback: 'config-session',
    guarantee: 'the lines go into a configuration session that is committed only if every line is accepted, otherwise aborted: nothing partial reaches the running configuration',
  },
  frr: {
    ...DIALECT_GRAMMAR.frr,
    sessionSetup: ['terminal length 0'],
    // FRR answers rc 0 to some of these; the words are what count.
    syntaxError: /^% (Unknown command|Command incomplete|Ambiguous command|Unknown action|Invalid)/m,
    configError: /^% /m,
    rollback: 'reapply-snapshot',
    guarantee:
      'FRR 8.4 has no commit or rollback: the running configuration is read before the change and, if a line fails, the difference is applied back line by line, then read again and compared; an error says so if it does not match',
    // vtysh answers an unknown word with "% Unknown command: <word>" (it never reaches a daemon); the
    // echo is the bare word. Verified on FRR 8.4; vtysh has no `echo` command.
    syncProbe: (token) => ({ line: token, answer: new RegExp(`^% Unknown command: ${token}$`, 'm') }),
  },
  netconf: NETCONF_PLATFORM,
};

export { grammarProblem } from '../../runbooks/dialect-grammar';
