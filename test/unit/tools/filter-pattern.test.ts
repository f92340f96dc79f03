import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLab } from '../../../harness/ios-lab/lab';
import { loadInventory } from '../../../harness/ios-lab/inventory';
import { checkFilterPattern, checkReadOnlyCommand, FILTER_MAX_LENGTH } from '../../../src/runbooks/read-only-command';

const ARTIFACTS = join(__dirname, '../../../intelligence-artifacts');

/** Every `| filter text` the RAWs write, template tags cut off where they begin. */
const rawFilters = () =>
  readdirSync(ARTIFACTS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => [...readFileSync(join(ARTIFACTS, d.name, 'RAW.yaml'), 'utf8').matchAll(/\|\s*(?:include|exclude|begin|section|count)\s+([^{'\n}]+)/g)])
    .map((m) => m[1]!.trim());

/** Patterns a backtracking engine (FRR's PCRE2, the lab's JavaScript) can spend minutes on, and the rule each breaks. */
const CATASTROPHIC: [string, RegExp][] = [
  ['(a+)+$', /repeated group/],
  ['(.*)*x', /repeated group/],
  ['(a|aa)*b', /repeated group/],
  ['(.*)(.*)(.*)(.*)\\4\\3\\2\\1z', /backreferences/],
  ['(x)\\1', /backreferences/],
  ['a'.repeat(10_000), /too long: a filter is at most 80 characters \(this one has 10000\)/],
  ['((a))', /nested groups/],
  ['((ab)c|d)e', /nested groups/],
  ['a{1,10000}', /counted repetition/],
  ['x{2}', /counted repetition/],
  ['a**', /cannot be repeated/],
  ['a+?b', /help key/],
  ['colou?r', /help key/],
  ['a++b', /cannot be repeated/],
  ['*abc', /must follow one character/],
  ['^*', /must follow one character/],
  ['a|+', /must follow one character/],
  ['(?=a)b', /special groups|help key/],
  ['(?R)', /special groups|help key/],
  ['.*.*.*.*.*x', /too many repetitions: at most 4/],
  ['(*LIMIT_MATCH=1)x', /special groups/],
  ['[[:alpha:]]+', /nested or POSIX classes/],
  ['[a-z', /unclosed class/],
  ['[]a]', /empty class/],
  ['\\d+\\s*', /only punctuation may be escaped/],
  ['\\Qa\\E', /only punctuation may be escaped/],
  ['abc\\', /cannot end with/],
  ['(abc', /unbalanced/],
  ['abc)', /unbalanced/],
];

const SAFE = [
  'ADJCHANGE|CONFIG_I',
  'LINK-5-CHANGED|CONFIG_I',
  'BGP state',
  'Last reset',
  'router bgp',
  'BGP state = (Established|Idle)',
  '^ *neighbor 10\\.0\\.0\\.[0-9]+ remote-as',
  'Gig[a-z]*[0-9]/[0-9]+',
  'state|shut',
  '[^!]$',
  '\\(config\\)',
  '.*Down.*BGP',
  'a'.repeat(FILTER_MAX_LENGTH),
];

describe('filter patterns: the safe subset', () => {
  it.each(CATASTROPHIC)('refuses %j, naming the rule', (pattern, why) => {
    expect(checkFilterPattern(pattern)).toMatch(why);
    const verdict = checkReadOnlyCommand(`show ip bgp neighbors | include ${pattern}`);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(why);
  });

  it.each(SAFE)('accepts %j', (pattern) => {
    expect(checkFilterPattern(pattern)).toBeUndefined();
    expect(checkReadOnlyCommand(`show running-config | include ${pattern}`)).toEqual({ ok: true });
  });

  it('accepts every filter the RAWs use', () => {
    const filters = rawFilters();
    expect(filters).toEqual(expect.arrayContaining(['ADJCHANGE|CONFIG_I', 'LINK-5-CHANGED|CONFIG_I', 'router bgp', 'Last reset']));
    for (const text of filters) expect(checkFilterPattern(text), text).toBeUndefined();
  });

  it('checks every filter word, abbreviated or not, and the whole text after it (chained filters too)', () => {
    for (const word of ['include', 'i', 'exclude', 'begin', 'section', 'sec', 'count']) {
      const verdict = checkReadOnlyCommand(`show running-config | ${word} (a+)+$`);
      expect(verdict, word).toMatchObject({ ok: false, reason: expect.stringMatching(/repeated group/) });
    }
    // A router may read everything after the first filter word as one pattern: the later part counts.
    expect(checkReadOnlyCommand('show ip bgp neighbors | include BGP state | exclude (.*)*x')).toMatchObject({ ok: false, reason: expect.stringMatching(/repeated group/) });
    expect(checkReadOnlyCommand('show ip bgp neighbors | include BGP state | exclude Idle')).toEqual({ ok: true });
  });

  it('refuses a filter with nothing to match, except count', () => {
    expect(checkReadOnlyCommand('show version | include ')).toMatchObject({ ok: false, reason: expect.stringMatching(/needs the text to match/) });
    expect(checkReadOnlyCommand('show ip interface brief | count')).toEqual({ ok: true });
  });

  it('the lab refuses a catastrophic filter with the same reason, before running it', async () => {
    const lab = createLab({ inventory: await loadInventory() });
    const command = 'show running-config | include (a+)+$';
    expect(lab.exec('R1', command)).toEqual({ ok: false, kind: 'not_in_grammar', error: `% ${(checkReadOnlyCommand(command) as { reason: string }).reason}` });
    expect(lab.exec('R1', 'show running-config | include BGP state = (Established|Idle)|router bgp')).toMatchObject({ ok: true });
  });
});
