import type { Platform } from '../platforms';
import { DIALECT_GRAMMAR } from '../../../runbooks/dialect-grammar';
import { NETCONF_PLATFORM_NAME } from './inventory';

/** The read-only "show" forms a NETCONF device answers, and the RPC each one is. */
export const NETCONF_SHOWS: Record<string, { source: 'running' | 'candidate' } | { capabilities: true }> = {
  'show running-config': { source: 'running' },
  'show candidate-config': { source: 'candidate' },
  'show capabilities': { capabilities: true },
};

/**
 * NETCONF in the platform table. There is no CLI behind it: `exec_cli` maps the few show forms
 * above to RPCs, and a change is not lines typed into configuration mode but one XML `<config>`
 * fragment (the approved "lines", joined by newlines and sent exactly as approved) applied to the
 * candidate and committed with a confirmed commit. The CLI-only fields stay empty; the hint turns
 * every other command away before anything is sent.
 */
export const NETCONF_PLATFORM: Platform = {
  ...DIALECT_GRAMMAR.netconf,
  name: NETCONF_PLATFORM_NAME,
  sessionSetup: [],
  // Errors come as <rpc-error>, never as text in the output.
  syntaxError: /(?!)/,
  configError: /(?!)/,
  rollback: 'confirmed-commit',
  guarantee:
    'the XML <config> fragment is edited into the locked candidate, validated and committed with a confirmed commit; running is read back and compared with the fragment; the device itself reverts the change unless it is confirmed in time, cancel-commit reverts it at once, and a failure at any step discards the candidate and releases the lock',
};
