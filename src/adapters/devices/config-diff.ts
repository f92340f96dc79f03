/**
 * Running configurations as sets of lines with their parents (`router bgp 65001` › `neighbor … shutdown`),
 * and the commands that turn one back into another. This is how a failed change is undone where the
 * device has no transaction (FRR 8.4, and the inverse-lines form for the IOS family): read the running
 * configuration before, apply the difference back after, and compare the two readings.
 */

/** Lines that structure or decorate the text but are not configuration. */
const NOISE = [
  /^!/,
  /^end$/,
  /^exit(-address-family|-vrf|-vni)?$/,
  /^Building configuration/,
  /^Current configuration/,
  /^frr (version|defaults)/,
  /^version /,
  /^! Last configuration change/,
];

export type ConfigPath = string[];
const key = (p: ConfigPath) => p.join('\u0000');

/**
 * Settings that hold one value, where the old line is put back over the new one and `no` must not run
 * first: on FRR `no neighbor X remote-as N` deletes the whole neighbor with every line under it (its
 * timers, its shutdown, its address-family lines), so undoing a remote-as change that way loses them.
 * The key is the setting without its value.
 */
const SINGLE_VALUED = [/^neighbor \S+ remote-as (?=\S+$)/];
const settingOf = (p: ConfigPath): string | undefined => {
  const line = p[p.length - 1]!;
  const m = SINGLE_VALUED.map((re) => re.exec(line)).find(Boolean);
  return m ? key([...p.slice(0, -1), m[0]]) : undefined;
};

export function parseRunningConfig(text: string): ConfigPath[] {
  const paths: ConfigPath[] = [];
  const stack: Array<{ indent: number; line: string }> = [];
  for (const raw of text.split('\n')) {
    const trimmed = raw.trim();
    if (!trimmed || NOISE.some((n) => n.test(trimmed))) continue;
    const indent = raw.length - raw.trimStart().length;
    while (stack.length && stack[stack.length - 1]!.indent >= indent) stack.pop();
    paths.push([...stack.map((s) => s.line), trimmed]);
    stack.push({ indent, line: trimmed });
  }
  return paths;
}

/** What differs, as `+ line` (present before, missing now) and `- line` (new since). */
export function describeDifference(before: string, after: string): string[] {
  const b = new Set(parseRunningConfig(before).map(key));
  const a = new Set(parseRunningConfig(after).map(key));
  const show = (k: string) => k.split('\u0000').join(' › ');
  return [...[...b].filter((k) => !a.has(k)).map((k) => `missing: ${show(k)}`), ...[...a].filter((k) => !b.has(k)).map((k) => `extra: ${show(k)}`)];
}

/**
 * Configuration-mode command groups that bring `current` back to `target`. Each group is entered from
 * the top of configuration mode: the parents, then the line.
 */
export function restoreCommands(target: string, current: string): string[][] {
  return restorePaths(parseRunningConfig(target), parseRunningConfig(current));
}

/** restoreCommands on configurations already parsed (the preview's predicted one included). */
export function restorePaths(want: ConfigPath[], have: ConfigPath[]): string[][] {
  const wantKeys = new Set(want.map(key));
  const haveKeys = new Set(have.map(key));
  const groups: string[][] = [];

  // A single-valued setting whose old value comes back below is overwritten there, not removed here.
  const restored = new Set(want.filter((p) => !haveKeys.has(key(p))).map(settingOf).filter((k) => k !== undefined));
  // Extra lines first, newest block last in, first out; a line inside a block that goes anyway is skipped.
  const extra = have.filter((p) => !wantKeys.has(key(p)) && !restored.has(settingOf(p) ?? ''));
  const extraKeys = new Set(extra.map(key));
  for (const p of [...extra].reverse()) {
    if (p.slice(0, -1).some((_, i) => extraKeys.has(key(p.slice(0, i + 1))))) continue;
    const line = p[p.length - 1]!;
    const undo = line.startsWith('no ') ? line.slice(3) : `no ${line}`;
    groups.push([...p.slice(0, -1), undo]);
  }
  // Missing lines in document order, so a block's opening line comes before its children.
  for (const p of want) {
    if (haveKeys.has(key(p))) continue;
    groups.push(p);
  }
  return groups;
}

/**
 * Command groups as a person reads them: each line indented under its parents, a parent written
 * once for consecutive groups that share it (each group is still entered from the top when applied).
 */
export function groupsAsLines(groups: readonly string[][]): string[] {
  const out: string[] = [];
  let open: string[] = [];
  for (const group of groups) {
    const parents = group.slice(0, -1);
    let shared = 0;
    while (shared < parents.length && shared < open.length && parents[shared] === open[shared]) shared++;
    parents.slice(shared).forEach((p, i) => out.push(`${' '.repeat(shared + i)}${p}`));
    out.push(`${' '.repeat(parents.length)}${group[group.length - 1]!}`);
    open = group;
  }
  return out;
}
