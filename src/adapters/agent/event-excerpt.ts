/** Longest excerpt of model text, tool output or error a timeline entry carries. */
export const EXCERPT_CHARS = 500;

export function excerpt(text: string, max = EXCERPT_CHARS): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
