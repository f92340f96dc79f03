/**
 * The one definition of a read-only device command, shared by the artifact validator,
 * the relay's device guard and the lab. It is deliberately narrow: a single `show`
 * line whose output may only be filtered, never written anywhere, and whose filter
 * cannot keep the router busy (see checkFilterPattern).
 */

/**
 * Output filters that only read. Abbreviations are accepted as IOS accepts them (`| i`, `| sec`),
 * unless they could also abbreviate a modifier that writes (`| s`, `| e`).
 */
export const READ_ONLY_FILTERS = ['include', 'exclude', 'begin', 'section', 'count'] as const;

/**
 * Pipe modifiers that write, send or run something (IOS `redirect`/`append`/`tee`, NX-OS and
 * EOS `save`, `json`-to-file forms, shells). A segment that starts with any prefix of one of
 * these is refused, so `| red flash:x` is caught as well as `| redirect flash:x`.
 */
const WRITING_MODIFIERS = ['redirect', 'append', 'tee', 'save', 'format', 'write', 'copy', 'file', 'email', 'exec', 'script', 'python', 'bash', 'shell', 'run', 'cli'];

/** C0/C1 controls (CR, LF, VT, FF, TAB, NEL…), DEL, and the Unicode line and paragraph separators. */
const LINE_BREAKERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/**
 * The router runs the filter itself, once per output line, in its daemon (FRR: PCRE2 inside bgpd,
 * which is single-threaded: a backreference pattern there kept bgpd busy for minutes and no Ctrl-C
 * stops it). So the pattern is held to a subset whose cost grows at most polynomially, with a
 * small, fixed degree: bounded length, few repetitions, and nothing a backtracking engine can
 * explode on (backreferences, repeated or nested groups, counted repetition, lookaround).
 */
export const FILTER_MAX_LENGTH = 80;
/** Each `*` or `+` multiplies the worst case of a backtracking engine by the line's length. */
export const FILTER_MAX_REPETITIONS = 4;

const HELP_KEY = '"?" is the CLI\'s help key, not text: it is refused (in a filter, use * or +)';

export type ReadOnlyVerdict = { ok: true } | { ok: false; reason: string };
const no = (reason: string): ReadOnlyVerdict => ({ ok: false, reason });

const firstWord = (segment: string) => segment.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
const isWriting = (word: string) => word.length > 0 && WRITING_MODIFIERS.some((m) => m.startsWith(word));
const isFilter = (word: string) => word.length > 0 && READ_ONLY_FILTERS.some((f) => f.startsWith(word)) && !isWriting(word);
/** `show`, or `sh`/`sho` as a router's CLI accepts. */
const isShow = (word: string) => word.length >= 2 && 'show'.startsWith(word);

export function checkReadOnlyCommand(command: string): ReadOnlyVerdict {
  if (LINE_BREAKERS.test(command)) return no('one line only: control characters and line separators are refused');
  if (command.includes(';')) return no('one command only: ";" is refused');
  if (command.includes('>')) return no('output redirection (">") is refused');
  // Typed into a CLI (IOS, vtysh), "?" lists completions and is dropped from the line: the router
  // would run another command than the one checked here.
  if (command.includes('?')) return no(HELP_KEY);
  const [head = '', ...pipes] = command.split('|');
  if (!isShow(firstWord(head)) || head.trim().split(/\s+/).length < 2) return no('only a "show …" command is read-only');
  if (pipes.length === 0) return { ok: true };
  const filter = firstWord(pipes[0] ?? '');
  if (!isFilter(filter)) return no(`only these output filters are allowed after "|": ${READ_ONLY_FILTERS.join(', ')}`);
  for (const segment of pipes) {
    const word = firstWord(segment);
    if (!segment.trim()) return no('an empty "|" segment is refused');
    // A later segment is either another filter, or part of the filter's regex (`include A|B`),
    // unless it could be read as a modifier that writes.
    if (!isFilter(word) && isWriting(word)) return no(`"| ${word}" could write or run something; only ${READ_ONLY_FILTERS.join(', ')} are allowed`);
  }
  // Everything after the first filter word, later `| exclude …` included: that is the most a router
  // may take as one pattern (IOS and FRR do), and any shorter reading is a part of it.
  const tail = pipes.join('|').trimStart().slice(filter.length).trim();
  if (!tail && !'count'.startsWith(filter)) return no(`filter: "| ${filter}" needs the text to match`);
  const problem = checkFilterPattern(tail);
  return problem ? no(`filter "${tail.length > 40 ? `${tail.slice(0, 40)}…` : tail}": ${problem}`) : { ok: true };
}

export const isReadOnlyCommand = (command: string) => checkReadOnlyCommand(command).ok;

/**
 * Why a filter pattern is outside the safe subset, or undefined when it is inside. The subset:
 * literal text; `.`; `^` and `$`; `|` alternation; `[…]` classes (not nested); `\` before
 * punctuation; one level of `( … )` that is not repeated; `*` and `+` only right after one
 * character, `.`, or a class, at most FILTER_MAX_REPETITIONS times (`?` is the CLI's help key).
 */
export function checkFilterPattern(pattern: string): string | undefined {
  if (pattern.length > FILTER_MAX_LENGTH) return `too long: a filter is at most ${FILTER_MAX_LENGTH} characters (this one has ${pattern.length})`;
  /** What the previous token was: a repetition may only follow an atom. */
  let prev: 'start' | 'atom' | 'repeat' | 'open' | 'close' | 'anchor' | 'bar' = 'start';
  let depth = 0;
  let repetitions = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const escaped = escapeProblem(pattern[i + 1]);
      if (escaped) return escaped;
      i++;
      prev = 'atom';
    } else if (c === '[') {
      const end = classEnd(pattern, i);
      if (typeof end === 'string') return end;
      i = end;
      prev = 'atom';
    } else if (c === '(') {
      if (pattern[i + 1] === '?' || pattern[i + 1] === '*') return 'special groups "(?…)" and "(*…)" (lookaround, options, recursion, verbs) are refused';
      if (depth > 0) return 'nested groups are refused: use one level of "( … )" at most';
      depth = 1;
      prev = 'open';
    } else if (c === ')') {
      if (depth === 0) return 'unbalanced parentheses: ")" without "("';
      depth = 0;
      prev = 'close';
    } else if (c === '?') {
      return HELP_KEY;
    } else if (c === '*' || c === '+') {
      if (prev === 'close') return `a repeated group "( … )${c}" is refused (it is what makes a pattern catastrophic)`;
      if (prev === 'repeat') return `"${pattern[i - 1]}${c}": a repetition cannot be repeated (nested, lazy or possessive quantifiers are refused)`;
      if (prev !== 'atom') return `"${c}" must follow one character, "." or a [class]`;
      if (++repetitions > FILTER_MAX_REPETITIONS) return `too many repetitions: at most ${FILTER_MAX_REPETITIONS} of * and + in a filter`;
      prev = 'repeat';
    } else if (c === '{') {
      return 'counted repetition "{n,m}" is refused: write the characters out, or use * or +';
    } else if (c === '|') {
      prev = 'bar';
    } else if (c === '^' || c === '$') {
      prev = 'anchor';
    } else {
      prev = 'atom';
    }
  }
  if (depth > 0) return 'unbalanced parentheses: "(" without ")"';
  return undefined;
}

/** After `\`: punctuation is a literal; a digit is a backreference; a letter is an engine-specific class or command. */
function escapeProblem(next: string | undefined): string | undefined {
  if (next === undefined) return 'a filter cannot end with "\\"';
  if (/[0-9]/.test(next)) return `backreferences ("\\${next}") are refused: they make matching exponential`;
  if (/[A-Za-z]/.test(next)) return `"\\${next}" is refused: only punctuation may be escaped (\\. \\| \\( …); write a [class] instead`;
  return undefined;
}

/** The index of the `]` that closes the class opened at `start`, or why the class is refused. */
function classEnd(pattern: string, start: number): number | string {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  for (; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === ']' && i > start + 1 && !(i === start + 2 && pattern[start + 1] === '^')) return i;
    if (c === ']') return 'an empty class "[]" is refused';
    if (c === '[') return 'nested or POSIX classes ("[[:alpha:]]") are refused: list the characters, e.g. [a-zA-Z]';
    if (c === '\\') {
      const escaped = escapeProblem(pattern[i + 1]);
      if (escaped) return escaped;
      i++;
    }
  }
  return 'unclosed class: "[" without "]"';
}
