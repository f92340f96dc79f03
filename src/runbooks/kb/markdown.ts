import { parse as parseYaml } from 'yaml';

export interface RawSection {
  /** Heading text; '' for the text before the first `##`. */
  heading: string;
  /** `#` count of the heading (1 for the page title block). */
  level: number;
  /** The section as written, heading line included. */
  text: string;
}

export interface WikiLink {
  target: string;
  heading?: string;
}

/** Splits `---\nyaml\n---\nbody`; a page without front matter yields `data` undefined. */
export function splitFrontMatter(source: string): { data: unknown; body: string; error?: string } {
  const text = source.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const match = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(text);
  if (!match) return { data: undefined, body: text };
  try {
    return { data: parseYaml(match[1]!), body: text.slice(match[0].length) };
  } catch (error) {
    return { data: undefined, body: text.slice(match[0].length), error: (error instanceof Error ? error.message : String(error)).split('\n')[0] };
  }
}

/**
 * Sections by `##` and `###` headings; the `#` title and any text before the first `##` form
 * the lead section. Headings inside fenced code blocks are not headings.
 */
export function splitSections(body: string): RawSection[] {
  const sections: RawSection[] = [];
  let current: RawSection = { heading: '', level: 1, text: '' };
  let fence: string | undefined;
  const lines = body.split('\n');
  for (const line of lines) {
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) fence = fence === undefined ? fenceMatch[1] : line.trim().startsWith(fence) ? undefined : fence;
    const heading = fence === undefined ? /^(#{2,3})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (heading) {
      sections.push(current);
      current = { heading: heading[2]!, level: heading[1]!.length, text: '' };
    }
    current.text += `${line}\n`;
  }
  sections.push(current);
  return sections
    .map((s) => ({ ...s, text: s.text.trim() }))
    .filter((s) => s.text !== '' && !(s.heading === '' && /^#\s[^\n]*$/.test(s.text)));
}

/** `[[page]]`, `[[page|label]]`, `[[page#Heading]]`, `[[page#Heading|label]]`, in order, deduplicated. */
export function extractWikiLinks(body: string): WikiLink[] {
  const seen = new Set<string>();
  const out: WikiLink[] = [];
  for (const m of body.matchAll(/\[\[([^\]|#\n]+)(?:#([^\]|\n]+))?(?:\|[^\]\n]*)?\]\]/g)) {
    const link: WikiLink = { target: m[1]!.trim(), ...(m[2] ? { heading: m[2].trim() } : {}) };
    const key = `${link.target}#${link.heading ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(link);
  }
  return out;
}

/** A wiki link target as a lookup key: case and `.md` do not matter. */
export const linkKey = (target: string) => target.trim().replace(/\.md$/i, '').toLowerCase();
