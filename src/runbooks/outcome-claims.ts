/**
 * Sentences that claim what became of a configuration change: the relay's to say from its change
 * record, never the model's or a runbook's. The relay drops them from an outcome it stores and shows,
 * and the artifact validator refuses them in a RAW's terminal summaries.
 */

/** A sentence that says what became of a configuration change. */
const CONFIG_FATE = [
  /\b(?:remains?|stays?|left|kept|still)\s+(?:in place|applied|on the device)\b/i,
  /\broll(?:ed|s|ing)?[\s-]*back\b/i,
  /\b(?:revert(?:ed|s)?|undone)\b/i,
  /\b(?:change|configuration|repair)\b.*\b(?:confirmed|kept|persists?|permanent)\b/i,
];

/** Sentences as written: up to and with their full stop, or a line's end. */
const SENTENCE = /[^.!?\n]+(?:[.!?]+|(?=\n)|$)/g;

/** The sentences of `text` that claim what became of the configuration. */
export function configClaims(text: string): string[] {
  return (text.match(SENTENCE) ?? []).map((s) => s.trim()).filter((s) => CONFIG_FATE.some((re) => re.test(s)));
}

/** `text` without its claims about the configuration (the relay says that itself). */
export function withoutConfigClaims(text: string): { text: string; removed: string[] } {
  const removed: string[] = [];
  const kept = text.replace(SENTENCE, (s) => {
    if (!CONFIG_FATE.some((re) => re.test(s))) return s;
    removed.push(s.trim());
    return '';
  });
  if (removed.length === 0) return { text, removed };
  const tidy = kept.replace(/[ \t]{2,}/g, ' ').replace(/[ \t]+$/gm, '').trim();
  return { text: tidy || '(no summary left once its claims about the configuration were removed)', removed };
}
