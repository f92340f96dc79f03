/**
 * The rule a pattern that reads device output for the relay's post-check must follow, so that text
 * the change itself controls (a description, a name, a remark) cannot satisfy it. Patterns are
 * JavaScript regexes in multiline mode, checked with their templates rendered.
 *
 * CLI output (one field per line), the pattern:
 *  1. starts with `^` (the start of a line);
 *  2. has no `|` outside a group or class (an alternative would not be anchored);
 *  3. after the `^` and optional indentation (spaces, `\s`, `\t`, each optionally quantified) has
 *     either (a) the field's literal label, text with at least one letter (`^\s+BGP state = `,
 *     `^router bgp `), or (b) the named group first, whose value is one token (no `.`, `\s`, space,
 *     `\W`, `\D` or negated class), followed at once by the field's literal label with a letter
 *     (`^\s+(?<prefixes>\d+) accepted prefixes`).
 * NETCONF output (XML, where device text is escaped and cannot make an element): the pattern starts
 * with the field's element tag (`<address>`), and has no top-level `|`.
 */
export function anchorProblem(pattern: string, xml: boolean): string | undefined {
  if (topLevelAlternation(pattern)) return 'it has a "|" outside any group: each alternative must be anchored on its own; wrap them in (?:…) after the anchor';
  if (xml) return /^<[A-Za-z][\w.-]*>/.test(pattern) ? undefined : 'on NETCONF it must start with the literal element tag of its field (e.g. <address>)';
  if (!pattern.startsWith('^')) return 'it does not start with "^": it can match anywhere in a line, a description included';
  let i = skipIndentation(pattern, 1);
  const label = literalRun(pattern, i);
  if (/[A-Za-z]/.test(label.text)) return undefined;
  i = label.end;
  if (!pattern.startsWith('(?<', i)) return 'after "^" and the indentation there is neither a literal field label (text with a letter) nor the value\'s named group';
  const close = groupEnd(pattern, i);
  if (close < 0) return 'its first group is not closed';
  const body = pattern.slice(i, close + 1);
  if (!oneToken(body)) return 'its first named group can match more than one token (".", "\\s", a space or a negated class): a field that comes first must be a single value followed by its label';
  if (!/[A-Za-z]/.test(literalRun(pattern, close + 1).text)) return 'the named group that comes first is not followed by a literal field label (text with a letter)';
  return undefined;
}

function skipIndentation(p: string, from: number): number {
  let i = from;
  for (;;) {
    const m = /^(?: |\\s|\\t)(?:[*+?]|\{\d+(?:,\d*)?\})?/.exec(p.slice(i));
    if (!m) return i;
    i += m[0].length;
  }
}

/** The literal text from `from` (escaped punctuation included), minus a last character a quantifier makes optional. */
function literalRun(p: string, from: number): { text: string; end: number } {
  let text = '';
  let i = from;
  while (i < p.length) {
    const c = p[i]!;
    if (c === '\\') {
      const n = p[i + 1];
      if (n === undefined || /[A-Za-z0-9]/.test(n)) break;
      text += n;
      i += 2;
    } else if ('()[]{}.*+?|^$'.includes(c)) break;
    else {
      text += c;
      i += 1;
    }
  }
  if (i < p.length && '*+?{'.includes(p[i]!)) text = text.slice(0, -1);
  return { text, end: i };
}

/** Index of the ")" closing the group opened at `open`, or -1. */
function groupEnd(p: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

function topLevelAlternation(p: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/** A group whose text cannot hold whitespace: one value, not a free-text run. */
function oneToken(group: string): boolean {
  const body = group.replace(/^\(\?<[A-Za-z_]\w*>/, '');
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const n = body[++i];
      if (n !== undefined && 'sWDn'.includes(n)) return false;
    } else if (c === ' ') return false;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      if (body[i + 1] === '^') return false;
      inClass = true;
    } else if (c === '.') return false;
  }
  return true;
}
