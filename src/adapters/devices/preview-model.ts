import { parseRunningConfig, type ConfigPath } from './config-diff';

/**
 * A predicted diff: what configuration lines would do to a running configuration, on a hierarchical
 * model of it (FRR 8.4 and the IOS family have no dry run that does not apply). Context lines such as
 * `router bgp 65001` enter a block, `no X` removes X (and what X heads) in that block, other lines add
 * themselves when absent and replace a sibling that sets the same single value (a description, a
 * remote-as). Lines that remove or reset more than they name take all of it (removalOf). It is a
 * prediction: the device's own parser decides when the change is applied.
 */

/** Lines that open a block at the top of configuration mode. */
export const TOP_BLOCK = /^(router\s+\S+|interface\s+\S+|vrf\s+\S+|vrf definition\s+\S+|ip vrf\s+\S+|route-map\s+\S+|line\s+\S+|key chain\s+\S+|bfd|segment-routing|mpls ldp|ip prefix-list\s+\S+\s+seq|class-map\s+\S+|policy-map\s+\S+)(\s|$)/i;
/** Lines that open a block inside a router block. */
const SUB_BLOCK = /^(address-family\s+\S+)/i;
const EXIT_ONE = /^exit(-address-family|-vrf|-vni)?$/i;
/** Mode lines an operator types, not configuration. */
const MODE_LINE = /^(configure(\s+terminal)?|conf\s+t(erm(inal)?)?)$/i;
/** A line that sets one value: a second one replaces the first (the key is the part before the value). */
const SINGLE_VALUE = [
  /^(description )/,
  /^(hostname )/,
  /^((?:bgp )?router-id )/,
  /^(neighbor \S+ (?:remote-as|description|update-source|password|ebgp-multihop|timers connect|maximum-prefix) )/,
  /^(ip address )/,
  /^(timers bgp )/,
];

const show = (p: ConfigPath) => p.join(' > ');
const same = (a: ConfigPath, b: ConfigPath) => a.length === b.length && a.every((x, i) => x === b[i]);
const under = (p: ConfigPath, head: ConfigPath) => p.length >= head.length && head.every((x, i) => x === p[i]);

export interface PredictedDiff {
  /** As `parent › line` paths, so a line is read with its block. */
  added: string[];
  removed: string[];
}

/**
 * What one `no …` or `default …` line takes out of the configuration (entered in `context`), and the context
 * after it. A whole neighbor goes with every line that names it, in every address family of its
 * router (`no neighbor X`, and `no neighbor X remote-as N`, which deletes the neighbor on FRR and the
 * IOS family alike); a block (`no router bgp 65001`, `no interface X`) goes whole, and only that one
 * block (`router bgp 65001 vrf A` is another); `default interface X` empties the interface but keeps
 * it; anything else removes the line it names and what that line heads, in its block.
 */
export function removalOf(context: ConfigPath, line: string): { keep: (p: ConfigPath) => boolean; context: ConfigPath } {
  const reset = /^default (interface \S+)$/i.exec(line);
  if (reset) return { keep: (p) => p[0] !== reset[1] || p.length === 1, context: [] };
  const target = line.slice(3);
  const neighbor = /^neighbor (\S+)(?: remote-as \S+)?$/.exec(target);
  if (neighbor && context.length && /^router bgp /.test(context[0]!)) {
    const router = context.slice(0, 1);
    const names = new RegExp(`^neighbor ${neighbor[1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`);
    return { keep: (p) => !(under(p, router) && p.slice(1).some((x) => names.test(x))), context: router };
  }
  if (TOP_BLOCK.test(target)) return { keep: (p) => p[0] !== target, context: [] };
  return {
    keep: (p) => {
      if (!under(p, context) || p.length === context.length) return true;
      const here = p[context.length]!;
      return !(here === target || here.startsWith(`${target} `));
    },
    context,
  };
}

/** What `lines` would make of `running` (the text of `show running-config`), as configuration paths. */
export function predictConfig(running: string, lines: readonly string[]): { before: ConfigPath[]; after: ConfigPath[] } {
  const before = parseRunningConfig(running);
  let config = [...before];
  let context: ConfigPath = [];
  for (const raw of lines) {
    const line = raw.trim().replace(/\s+/g, ' ');
    if (!line || line.startsWith('!') || MODE_LINE.test(line)) continue;
    if (line === 'end') {
      context = [];
      continue;
    }
    if (EXIT_ONE.test(line)) {
      context = context.slice(0, -1);
      continue;
    }
    if (TOP_BLOCK.test(line.replace(/^(no|default) /, ''))) context = [];
    else if (SUB_BLOCK.test(line)) context = context.slice(0, 1);
    if (line.startsWith('no ') || /^default interface /i.test(line)) {
      const removal = removalOf(context, line);
      config = config.filter(removal.keep);
      context = removal.context;
      continue;
    }
    const path = [...context, line];
    if (!config.some((p) => same(p, path))) {
      const key = SINGLE_VALUE.map((r) => r.exec(line)?.[1]).find(Boolean);
      if (key) config = config.filter((p) => !(p.length === path.length && under(p, context) && p[context.length]!.startsWith(key)));
      config.push(path);
    }
    if (TOP_BLOCK.test(line) || SUB_BLOCK.test(line) || config.some((p) => p.length > path.length && under(p, path))) context = path;
  }
  return { before, after: config };
}

/** What `lines` would add to and remove from `running` (the text of `show running-config`). */
export function predictDiff(running: string, lines: readonly string[]): PredictedDiff {
  const { before, after } = predictConfig(running, lines);
  const has = (set: ConfigPath[], p: ConfigPath) => set.some((q) => same(q, p));
  return {
    added: after.filter((p) => !has(before, p)).map(show),
    removed: before.filter((p) => !has(after, p)).map(show),
  };
}
