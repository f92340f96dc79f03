import { parseRunningConfig, type ConfigPath } from './config-diff';

/**
 * A predicted diff: what configuration lines would do to a running configuration, on a hierarchical
 * model of it (FRR 8.4 and the IOS family have no dry run that does not apply). Context lines such as
 * `router bgp 65001` enter a block, `no X` removes X (and what X heads) in that block, other lines add
 * themselves when absent and replace a sibling that sets the same single value (a description, a
 * remote-as). It is a prediction: the device's own parser decides when the change is applied.
 */

/** Lines that open a block at the top of configuration mode. */
const TOP_BLOCK = /^(router\s+\S+|interface\s+\S+|vrf\s+\S+|vrf definition\s+\S+|ip vrf\s+\S+|route-map\s+\S+|line\s+\S+|key chain\s+\S+|bfd|segment-routing|mpls ldp|ip prefix-list\s+\S+\s+seq|class-map\s+\S+|policy-map\s+\S+)(\s|$)/i;
/** Lines that open a block inside a router block. */
const SUB_BLOCK = /^(address-family\s+\S+)/i;
const EXIT_ONE = /^exit(-address-family|-vrf|-vni)?$/i;
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

/** What `lines` would add to and remove from `running` (the text of `show running-config`). */
export function predictDiff(running: string, lines: readonly string[]): PredictedDiff {
  const before = parseRunningConfig(running);
  let config = [...before];
  let context: ConfigPath = [];
  for (const raw of lines) {
    const line = raw.trim().replace(/\s+/g, ' ');
    if (!line || line.startsWith('!')) continue;
    if (line === 'end') {
      context = [];
      continue;
    }
    if (EXIT_ONE.test(line)) {
      context = context.slice(0, -1);
      continue;
    }
    if (TOP_BLOCK.test(line.replace(/^no /, ''))) context = [];
    else if (SUB_BLOCK.test(line)) context = context.slice(0, 1);
    if (line.startsWith('no ')) {
      const target = line.slice(3);
      // `no neighbor X` removes every line of neighbor X in the block and the blocks under it.
      config = config.filter((p) => {
        if (!under(p, context) || p.length === context.length) return true;
        const here = p[context.length]!;
        return !(here === target || here.startsWith(`${target} `));
      });
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
  const has = (set: ConfigPath[], p: ConfigPath) => set.some((q) => same(q, p));
  return {
    added: config.filter((p) => !has(before, p)).map(show),
    removed: before.filter((p) => !has(config, p)).map(show),
  };
}
