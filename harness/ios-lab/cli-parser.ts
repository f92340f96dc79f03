import { INVALID_INPUT, invalidInput } from './ios-format';

/**
 * A tiny IOS-style command parser: keywords may be abbreviated to any unique prefix
 * (`sh ip bgp sum`), parameters are typed, and errors read as IOS prints them.
 */
export type ParamKind = 'ipv4' | 'word' | 'number' | 'interface' | 'rest';

export interface GrammarNode<R> {
  keyword?: string;
  param?: { name: string; kind: ParamKind };
  children?: GrammarNode<R>[];
  /** Present when the command may end here. */
  run?: (args: Record<string, string>) => R;
}

export type ParseResult<R> = { ok: true; run: () => R } | { ok: false; error: string };

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
const INTERFACE_TYPES = ['GigabitEthernet', 'TenGigabitEthernet', 'Loopback'];

/** Resolves `Gi1`, `gig 1`-style abbreviations to a full name present in `known`. */
export function resolveInterfaceName(token: string, known: readonly string[]): string | undefined {
  const m = /^([A-Za-z]+)(\d+(?:\/\d+)*)$/.exec(token);
  if (!m) return undefined;
  const [, type = '', number = ''] = m;
  const types = INTERFACE_TYPES.filter((t) => t.toLowerCase().startsWith(type.toLowerCase()));
  if (types.length !== 1) return undefined;
  const full = `${types[0]}${number}`;
  return known.find((k) => k === full);
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

export function parseCommand<R>(
  roots: GrammarNode<R>[],
  line: string,
  ctx: { interfaces: readonly string[] },
): ParseResult<R> {
  const tokens = [...line.matchAll(/\S+/g)].map((m) => ({ text: m[0], at: m.index }));
  if (tokens.length === 0) return { ok: false, error: '% Incomplete command.' };
  let level = roots;
  let node: GrammarNode<R> | undefined;
  const args: Record<string, string> = {};
  for (let t = 0; t < tokens.length; t++) {
    const { text, at } = tokens[t]!;
    const lower = text.toLowerCase();
    const keywords = level.filter((n) => n.keyword?.startsWith(lower));
    const exact = keywords.find((n) => n.keyword === lower);
    if (exact || keywords.length === 1) {
      node = exact ?? keywords[0]!;
    } else if (keywords.length > 1) {
      return { ok: false, error: `% Ambiguous command:  "${line.trim()}"` };
    } else {
      let matched: GrammarNode<R> | undefined;
      for (const n of level) {
        if (!n.param) continue;
        const { kind, name } = n.param;
        if (kind === 'rest') {
          args[name] = line.slice(at).trim();
          matched = n;
          t = tokens.length;
          break;
        }
        let value: string | undefined;
        if (kind === 'ipv4' && IPV4.test(text)) value = text;
        if (kind === 'number' && /^\d+$/.test(text)) value = text;
        if (kind === 'word') value = text;
        if (kind === 'interface') value = resolveInterfaceName(text, ctx.interfaces);
        if (value !== undefined) {
          args[name] = value;
          matched = n;
          break;
        }
      }
      if (!matched) {
        const depth = Math.max(0, ...level.filter((n) => n.keyword).map((n) => commonPrefix(lower, n.keyword!)));
        return { ok: false, error: invalidInput(line, at + depth) };
      }
      node = matched;
    }
    level = node.children ?? [];
  }
  const run = node?.run;
  if (!run) return { ok: false, error: '% Incomplete command.' };
  return { ok: true, run: () => run(args) };
}

const PIPES = ['begin', 'count', 'exclude', 'include', 'section'] as const;

/** Splits `cmd | include X` and returns the filter to apply to the command's output. */
export function splitPipe(line: string): { command: string; filter?: (out: string) => string; error?: string } {
  const bar = line.indexOf('|');
  if (bar < 0) return { command: line };
  const command = line.slice(0, bar);
  const rest = line.slice(bar + 1).trim();
  const m = /^(\S+)\s*(.*)$/.exec(rest);
  const word = m?.[1]?.toLowerCase() ?? '';
  const pattern = m?.[2] ?? '';
  const kinds = PIPES.filter((p) => p.startsWith(word));
  if (!word || kinds.length !== 1) {
    return { command, error: invalidInput(line, bar + 1 + (line.slice(bar + 1).length - line.slice(bar + 1).trimStart().length)) };
  }
  if (!pattern && kinds[0] !== 'count') return { command, error: '% Incomplete command.' };
  let re: RegExp;
  try {
    re = new RegExp(pattern || '.');
  } catch {
    return { command, error: INVALID_INPUT };
  }
  const filters: Record<(typeof PIPES)[number], (out: string) => string> = {
    include: (out) => out.split('\n').filter((l) => re.test(l)).join('\n'),
    exclude: (out) => out.split('\n').filter((l) => !re.test(l)).join('\n'),
    begin: (out) => {
      const lines = out.split('\n');
      const i = lines.findIndex((l) => re.test(l));
      return i < 0 ? '' : lines.slice(i).join('\n');
    },
    count: (out) => `Number of lines which match regexp = ${out.split('\n').filter((l) => re.test(l)).length}`,
    // A top-level line that matches brings its indented children with it.
    section: (out) => {
      const keep: string[] = [];
      let inBlock = false;
      for (const l of out.split('\n')) {
        const top = !/^\s/.test(l);
        if (top) inBlock = re.test(l) && l !== '!';
        if (inBlock) keep.push(l);
      }
      return keep.join('\n');
    },
  };
  return { command, filter: filters[kinds[0]!] };
}
