import { describe, expect, it } from 'vitest';
import { checkReadOnlyCommand } from '../../../src/runbooks/read-only-command';
import { createLab } from '../../../harness/ios-lab/lab';
import { loadInventory } from '../../../harness/ios-lab/inventory';

const ACCEPTED = [
  'show version',
  'sh ip bgp summary',
  'show ip bgp neighbors 10.0.0.2',
  'show running-config | section router bgp',
  'show running-config | sec router bgp',
  'show logging | include ADJCHANGE|CONFIG_I',
  'show ip interface brief | i Gigabit',
  'show ip interface brief | exclude down',
  'show running-config | begin router bgp',
  'show ip interface brief | count up',
  'show ip bgp neighbors 10.0.0.2 | include BGP state | exclude Idle',
];

const REFUSED: [string, RegExp][] = [
  ['show running-config | redirect flash:x', /only these output filters/],
  ['show running-config | red flash:x', /only these output filters/],
  ['show running-config | append flash:x', /only these output filters/],
  ['show running-config | tee flash:x', /only these output filters/],
  ['show logging | include ADJ | redirect tftp://192.0.2.1/x', /could write/],
  ['show logging | include ADJ|r', /could write/],
  ['show running-config | format flash:x.xsl', /only these output filters/],
  ['show running-config | s router', /only these output filters/],
  ['show running-config > bootflash:x', /redirection/],
  ['show running-config >> bootflash:x', /redirection/],
  ['show version ; reload', /";"/],
  ['show version\nreload', /control characters/],
  ['show version\rreload', /control characters/],
  ['show version\u2028reload', /line separators/],
  ['show version\u2029reload', /line separators/],
  ['show version\u0085reload', /control characters/],
  ['show version\u000breload', /control characters/],
  ['show version\u000creload', /control characters/],
  ['show version\treload', /control characters/],
  ['configure terminal', /only a "show …" command/],
  ['s version', /only a "show …" command/],
  ['show', /only a "show …" command/],
  ['reload', /only a "show …" command/],
  ['show version |', /empty "\|" segment|only these output filters/],
  ['show version | ', /empty "\|" segment|only these output filters/],
];

describe('read-only command definition', () => {
  it.each(ACCEPTED)('accepts %j', (command) => {
    expect(checkReadOnlyCommand(command)).toEqual({ ok: true });
  });

  it.each(REFUSED)('refuses %j', (command, why) => {
    const verdict = checkReadOnlyCommand(command);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(why);
  });

  it('the lab refuses exactly what the guard refuses, with the same reason', async () => {
    const lab = createLab({ inventory: await loadInventory() });
    for (const [command] of REFUSED) {
      const result = lab.exec('R1', command);
      expect(result.ok, command).toBe(false);
    }
    const redirect = lab.exec('R1', 'show running-config | redirect flash:x');
    expect(redirect).toEqual({ ok: false, kind: 'not_in_grammar', error: `% ${(checkReadOnlyCommand('show running-config | redirect flash:x') as { reason: string }).reason}` });
  });
});
