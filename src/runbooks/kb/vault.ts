import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { extractWikiLinks, linkKey, splitFrontMatter, splitSections } from './markdown';
import { frontMatterSchema } from './schema';

export interface WikiSection {
  heading: string;
  level: number;
  text: string;
}

export interface WikiPage {
  /** Path inside the vault without `.md`, `/`-separated: `policies/approval-policy`. */
  id: string;
  /** Path inside the vault, as a curator would open it. */
  file: string;
  title: string;
  tags: string[];
  updated: string;
  /** Ids of linked pages (front matter `links`, then body links), resolved, deduplicated, in order. */
  links: string[];
  body: string;
  sections: WikiSection[];
}

export interface Vault {
  dir: string;
  /** Sorted by id, so every answer built from it is stable. */
  pages: WikiPage[];
  byId: Map<string, WikiPage>;
  /** `file: target` for links that name no page; kept for curators, never fatal. */
  brokenLinks: string[];
}

export class KbVaultError extends Error {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(message);
    this.name = 'KbVaultError';
  }
}

async function markdownFiles(dir: string, rel = ''): Promise<string[]> {
  const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await markdownFiles(dir, child)));
    // README.md describes the vault (or a folder of it) for curators; it is not knowledge.
    else if (e.isFile() && e.name.endsWith('.md') && e.name.toLowerCase() !== 'readme.md') out.push(child);
  }
  return out;
}

/**
 * Reads every page of the vault. A page with missing or invalid front matter makes the whole
 * load fail with one line per problem, so a curator sees all of them at once.
 */
export async function loadVault(dir: string): Promise<Vault> {
  let files: string[];
  try {
    files = (await markdownFiles(dir)).sort();
  } catch (error) {
    throw new KbVaultError(`KB vault ${dir} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error))}`, []);
  }
  const problems: string[] = [];
  const parsed: (Omit<WikiPage, 'links'> & { rawLinks: string[] })[] = [];
  for (const file of files) {
    const { data, body, error } = splitFrontMatter(await readFile(path.join(dir, file), 'utf8'));
    if (error) {
      problems.push(`${file}: front matter is not valid YAML: ${error}`);
      continue;
    }
    const fm = frontMatterSchema.safeParse(data ?? {});
    if (!fm.success) {
      for (const issue of fm.error.issues) problems.push(`${file}: front matter ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      continue;
    }
    const id = file.replace(/\.md$/, '');
    parsed.push({
      id,
      file,
      title: fm.data.title,
      tags: fm.data.tags.map((t) => t.toLowerCase()),
      updated: fm.data.updated,
      body: body.trim(),
      sections: splitSections(body),
      rawLinks: [...fm.data.links, ...extractWikiLinks(body).map((l) => l.target)],
    });
  }
  if (problems.length) throw new KbVaultError(`KB vault ${dir} has ${problems.length} invalid page(s):\n${problems.join('\n')}`, problems);

  const byKey = new Map<string, string>();
  const basenames = new Map<string, string[]>();
  for (const p of parsed) {
    byKey.set(p.id.toLowerCase(), p.id);
    const base = p.id.split('/').pop()!.toLowerCase();
    basenames.set(base, [...(basenames.get(base) ?? []), p.id]);
  }
  for (const [base, ids] of basenames) if (ids.length === 1 && !byKey.has(base)) byKey.set(base, ids[0]!);
  for (const p of parsed) if (!byKey.has(p.title.toLowerCase())) byKey.set(p.title.toLowerCase(), p.id);

  const brokenLinks: string[] = [];
  const pages: WikiPage[] = parsed.map(({ rawLinks, ...page }) => {
    const links: string[] = [];
    for (const raw of rawLinks) {
      const id = byKey.get(linkKey(raw));
      if (!id) brokenLinks.push(`${page.file}: [[${raw}]]`);
      else if (id !== page.id && !links.includes(id)) links.push(id);
    }
    return { ...page, links };
  });
  return { dir, pages, byId: new Map(pages.map((p) => [p.id, p])), brokenLinks: [...new Set(brokenLinks)] };
}
