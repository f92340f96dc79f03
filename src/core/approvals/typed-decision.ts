import type { Decision } from '../incidents/model';
import { storableText } from '../incidents/storable-text';

/**
 * What an operator typed in the terminal UI, read strictly: the whole message is `APPROVED` or
 * `DENIED`, in capitals, optionally followed by `:` or ` - ` and a reason on the same line.
 * `approved? why does it shut 10.0.0.9` is a question, not a decision.
 */
export type TypedAnswer =
  | { kind: 'decision'; decision: Decision; reason?: string }
  /** Looks like an answer but is not one exactly: the operator is told how to answer. */
  | { kind: 'not_a_decision'; why: string }
  /** Anything else: a message for the agent. */
  | { kind: 'other' };

const EXACT = /^(APPROVED|DENIED)(?:(?:\s*:|\s+-)\s*(\S[^\r\n]*))?$/;
const LOOKS_LIKE = /^\W*(approv|aprov|deny|deni|deci|yes\b|no\b|ok\b|lgtm\b|go\b)/i;

export const HOW_TO_ANSWER = 'type APPROVED or DENIED as the whole message, optionally followed by ": reason" or " - reason"';

export function readTypedAnswer(text: string): TypedAnswer {
  const trimmed = text.trim();
  const exact = EXACT.exec(trimmed);
  if (exact) {
    const reason = exact[2] ? storableText(exact[2].trim()) : undefined;
    return { kind: 'decision', decision: exact[1] as Decision, ...(reason ? { reason: reason.slice(0, 500) } : {}) };
  }
  if (LOOKS_LIKE.test(trimmed) || /\b(APPROVED|DENIED)\b/.test(trimmed)) {
    const quoted = trimmed.slice(0, 80).replace(/\s+/g, ' ');
    return { kind: 'not_a_decision', why: `"${quoted}" is not a decision: ${HOW_TO_ANSWER}` };
  }
  return { kind: 'other' };
}
