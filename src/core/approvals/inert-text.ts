import { BIDI, INVISIBLE } from './visible-text';

/**
 * Text the relay shows but did not write (the model's summaries, notices and outcome, a person's
 * reason) as text and nothing more: it can never open a heading, a table, a code block, a link or
 * emphasis that reads as the relay's own, and no character in it is hidden or reorders the rest.
 * One place for every rendering: plain (the `/ui`, a terminal, Adaptive Card TextRuns, Slack
 * `plain_text`), quoted Markdown (Webex, the logs and the evidence) and a Markdown table cell.
 */

/** Controls other than line feed and tab (a bare CR is a line break to Markdown), C1, bidi, invisible, line separators. */
const HIDDEN = new RegExp(`${BIDI.source}|${INVISIBLE.source}|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029]`, 'gu');

const hex = (ch: string) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`;

/** What the agent wrote, every hidden or control character written out as `\u{XXXX}`; CRLF is a line break like LF. */
export function visibleText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(HIDDEN, hex);
}

/**
 * Markdown's inline markup and what starts an entity, escaped wherever they are; `_` only where it
 * could open or close emphasis (not between two letters or digits, as in `device_exec`), and `(`
 * only after `]`: with no `](` and no `<` there is no link (nothing here can define a reference).
 */
const INLINE = /[\\`*<>&|~#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|(?<=\])\(/g;
/** What opens a block only at the start of a line: list items, setext underlines, ordered lists. */
const LINE_START = /^([-+=]|\d+(?=[.)]))/;

/** One line of untrusted text as Markdown that renders as exactly that text. */
function escapeLine(line: string): string {
  // Leading blanks would make an indented code block: kept as no-break spaces, which only indent.
  const [, indent = '', rest = ''] = /^([ \t]*)(.*)$/s.exec(line) ?? [];
  const escaped = rest.replace(INLINE, (ch) => `\\${ch}`).replace(LINE_START, (m) => (/\d/.test(m) ? `${m}\\` : `\\${m}`));
  return '\u00a0'.repeat(indent.replace(/\t/g, '    ').length) + escaped;
}

/** Escaped for a Markdown table cell: a line break is `<br>` (the only HTML in it), a pipe cannot end the cell. */
export function markdownCell(text: string): string {
  return visibleText(text)
    .split('\n')
    .map((line) => line.replace(INLINE, (ch) => `\\${ch}`))
    .join('<br>');
}

/** Untrusted text inline in a line of the relay's Markdown: one line (breaks shown as ` ⏎ `), escaped, in quotation marks. */
export function inlineMarkdown(text: string): string {
  return `“${visibleText(text).split('\n').join(' ⏎ ').replace(INLINE, (ch) => `\\${ch}`)}”`;
}

/** Untrusted text as a Markdown block quote whose every line is plain text: the caller writes the label above it. */
export function quotedMarkdown(text: string): string {
  const lines = visibleText(text).split('\n');
  return lines.map((line) => (line.trim() ? `> ${escapeLine(line)}` : '>')).join('\n');
}

/** Untrusted text for a terminal or a plain-text log: every line behind `> `, so none reads as the relay's own. */
export function quotedPlain(text: string): string {
  return visibleText(text)
    .split('\n')
    .map((line) => `> ${line}`.trimEnd())
    .join('\n');
}

/** Who wrote what is quoted, as the label above it: our words, bold, never the model's. */
export const AGENT_SUMMARY_LABEL = "The agent's summary (its own words, not checked by the relay)";
export const AGENT_MESSAGE_LABEL = "The agent's message (its own words, not checked by the relay)";
export const AGENT_OUTCOME_LABEL = "The agent's account of the outcome (its own words, not checked by the relay)";
/** An outcome the relay recorded itself (expiry, a failed run): quoted too, as it may carry a runtime's error text. */
export const RELAY_OUTCOME_LABEL = 'Why, as the relay recorded it';

/** The label for an incident's outcome summary, by who wrote it. */
export const outcomeLabel = (outcome: { by?: 'agent' }) => (outcome.by === 'agent' ? AGENT_OUTCOME_LABEL : RELAY_OUTCOME_LABEL);

/** A labelled, quoted block of the agent's text, for any Markdown the relay writes. */
export function labelledQuote(label: string, text: string): string {
  return `**${label}:**\n\n${quotedMarkdown(text)}`;
}
