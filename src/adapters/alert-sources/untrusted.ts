/**
 * Alert text comes from log lines anyone with access to a device can influence. The
 * prompt marks it as data; this flags text that reads like instructions to the agent,
 * so the incident carries a warning and the agent escalates instead of obeying.
 */
const INSTRUCTION_LIKE: RegExp[] = [
  /\b(ignore|disregard|forget)\b.{0,40}\b(previous|prior|above|all|earlier)\b.{0,40}\b(instructions?|rules?|prompts?)\b/i,
  /\byou are (now|no longer)\b/i,
  /\b(system|developer) (prompt|message)\b/i,
  /<\/?\s*(system|assistant|user|instructions?)\s*>/i,
  /^\s*(system|assistant)\s*:/im,
  /\b(new|updated) instructions?\b/i,
  /\b(approve|approval)\b.{0,30}\b(automatically|skip|bypass|not needed)\b/i,
  /\b(conf(igure)?\s+t(erminal)?|write\s+(mem|erase)|reload|copy\s+run)\b/i,
  /```/,
];

export function looksLikeInstructions(text: string): boolean {
  return INSTRUCTION_LIKE.some((re) => re.test(text));
}
