import { bm25, terms, type RankDoc } from './rank';
import { wikiQueryInputSchema, type KbDepth } from './schema';
import { loadVault, type Vault, type WikiPage } from './vault';

export type WikiHitKind = 'section' | 'page' | 'linked' | 'incident';

export interface WikiHit {
  kind: WikiHitKind;
  page: string;
  file: string;
  title: string;
  /** Section heading, for `section` hits. */
  heading?: string;
  /** The matched page that links here, for `linked` hits. */
  via?: string;
  updated: string;
  score: number;
  text: string;
}

export interface WikiAnswer {
  query: string;
  depth: KbDepth;
  pagesSearched: number;
  hits: WikiHit[];
  /** Some hits were cut or left out to stay within the depth's size cap. */
  truncated: boolean;
  /** What the agent reads: every hit as Markdown, in order, within the cap. */
  text: string;
}

export class KbQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KbQueryError';
  }
}

/** Characters of answer text per depth: quick stays small enough to read at a glance. */
export const DEPTH_CHAR_CAP: Record<KbDepth, number> = { quick: 4_000, standard: 12_000, deep: 30_000 };
const LIMITS = { sections: 4, pages: 3, linked: 6, incidents: 5 } as const;
/** A hit below this share of the best score is noise, not "one of the best". */
const RELATIVE_FLOOR = 0.35;
const HISTORY_TAG = 'incident-history';

const isIndex = (p: WikiPage) => p.tags.includes('index');
const isIncident = (p: WikiPage) => p.tags.includes(HISTORY_TAG) && !isIndex(p);
const labelTerms = (p: WikiPage, heading = '') => terms(`${p.title} ${heading} ${p.tags.join(' ')}`);
const round = (n: number) => Math.round(n * 1000) / 1000;

/** Best first; ties by page id then position, so the same vault always answers the same. */
function best<T extends { score: number; key: string }>(items: T[], limit: number): T[] {
  const sorted = items.filter((i) => i.score > 0).sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
  const top = sorted[0]?.score ?? 0;
  return sorted.filter((i) => i.score >= top * RELATIVE_FLOOR).slice(0, limit);
}

function rankPages(pages: WikiPage[], q: string[]) {
  const docs: RankDoc[] = pages.map((p) => ({ body: terms(p.body), label: labelTerms(p) }));
  return bm25(q, docs).map((score, i) => ({ page: pages[i]!, score, key: pages[i]!.id }));
}

const pageHit = (page: WikiPage, kind: WikiHitKind, score: number, via?: string): WikiHit => ({
  kind,
  page: page.id,
  file: page.file,
  title: page.title,
  ...(via ? { via } : {}),
  updated: page.updated,
  score: round(score),
  text: page.body,
});

function quickHits(vault: Vault, q: string[]): WikiHit[] {
  // Index pages mention every topic by design; they are reached as links, never as answers.
  const sections = vault.pages.filter((p) => !isIndex(p)).flatMap((page) => page.sections.map((section, index) => ({ page, section, index })));
  const docs: RankDoc[] = sections.map(({ page, section }) => ({ body: terms(section.text), label: labelTerms(page, section.heading) }));
  const scored = bm25(q, docs).map((score, i) => ({ ...sections[i]!, score, key: `${sections[i]!.page.id}\u0000${String(sections[i]!.index).padStart(4, '0')}` }));
  return best(scored, LIMITS.sections).map(({ page, section, score }) => ({
    kind: 'section',
    page: page.id,
    file: page.file,
    title: page.title,
    heading: section.heading || page.title,
    updated: page.updated,
    score: round(score),
    text: section.text,
  }));
}

function deepHits(vault: Vault, q: string[]): WikiHit[] {
  const knowledge = vault.pages.filter((p) => !isIncident(p) && !isIndex(p));
  const matched = best(rankPages(knowledge, q), LIMITS.pages);
  const hits = matched.map((m) => pageHit(m.page, 'page', m.score));
  const included = new Set(matched.map((m) => m.page.id));

  const scores = new Map(rankPages(vault.pages, q).map((r) => [r.page.id, r.score]));
  const linked: WikiHit[] = [];
  for (const m of matched) {
    for (const id of m.page.links) {
      const page = vault.byId.get(id);
      if (!page || included.has(id) || isIncident(page) || linked.length >= LIMITS.linked) continue;
      included.add(id);
      linked.push(pageHit(page, 'linked', scores.get(id) ?? 0, m.page.id));
    }
  }

  const incidents = vault.pages.filter(isIncident);
  let history = best(rankPages(incidents, q), LIMITS.incidents).map((r) => pageHit(r.page, 'incident', r.score));
  // No past incident matches: the newest few still tell the agent what usually happens.
  if (history.length === 0) {
    history = [...incidents]
      .sort((a, b) => b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id))
      .slice(0, 3)
      .map((p) => pageHit(p, 'incident', 0));
  }
  return [...hits, ...linked, ...history];
}

function header(hit: WikiHit, n: number): string {
  const where = hit.kind === 'section' ? `kb/${hit.file} › ${hit.heading}` : `kb/${hit.file}`;
  const what = { section: 'section', page: 'page', linked: `linked page (from ${hit.via})`, incident: 'incident history' }[hit.kind];
  return `--- result ${n} · ${what} · ${where} · updated ${hit.updated}`;
}

function render(query: string, depth: KbDepth, pagesSearched: number, hits: WikiHit[]): { text: string; truncated: boolean } {
  const head = `KB wiki_query · depth ${depth} · query "${query}" · ${hits.length} result(s) from ${pagesSearched} pages`;
  if (hits.length === 0) return { text: `${head}\n\nNo KB page matches this query.`, truncated: false };
  const cap = DEPTH_CHAR_CAP[depth];
  let text = head;
  const left: string[] = [];
  let truncated = false;
  hits.forEach((hit, i) => {
    const block = `\n\n${header(hit, i + 1)}\n${hit.text}`;
    if (truncated) {
      left.push(`kb/${hit.file}${hit.heading ? ` › ${hit.heading}` : ''}`);
      return;
    }
    if (text.length + block.length <= cap) {
      text += block;
      return;
    }
    truncated = true;
    const room = cap - text.length - 120;
    if (room > 400) {
      const cut = block.slice(0, room);
      text += `${cut.slice(0, Math.max(cut.lastIndexOf('\n'), room / 2))}\n[… result ${i + 1} cut at the size cap of depth ${depth}]`;
    } else left.push(`kb/${hit.file}${hit.heading ? ` › ${hit.heading}` : ''}`);
  });
  if (left.length) text += `\n\n[Not shown, size cap of depth ${depth}: ${left.join('; ')}. Ask a narrower query to see them.]`;
  return { text, truncated };
}

/** Answers one query over an already loaded vault. Throws KbQueryError for bad arguments. */
export function queryVault(vault: Vault, input: unknown): WikiAnswer {
  const parsed = wikiQueryInputSchema.safeParse(input);
  if (!parsed.success) throw new KbQueryError(`wiki_query: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  const { query, depth } = parsed.data;
  const q = terms(query);
  if (q.length === 0) throw new KbQueryError(`wiki_query: query "${query}" has no searchable words`);
  const hits =
    depth === 'quick'
      ? quickHits(vault, q)
      : depth === 'standard'
        ? best(rankPages(vault.pages.filter((p) => !isIndex(p)), q), LIMITS.pages).map((r) => pageHit(r.page, 'page', r.score))
        : deepHits(vault, q);
  return { query, depth, pagesSearched: vault.pages.length, hits, ...render(query, depth, vault.pages.length, hits) };
}

export interface WikiQuery {
  /** Reads the vault afresh (curators' edits show at once) and answers. */
  query(input: unknown): Promise<WikiAnswer>;
}

export function createWikiQuery(opts: { vaultDir: string }): WikiQuery {
  return {
    async query(input) {
      // Arguments first: a bad query is the caller's problem even when the vault is broken too.
      const parsed = wikiQueryInputSchema.safeParse(input);
      if (!parsed.success) return queryVault({ dir: opts.vaultDir, pages: [], byId: new Map(), brokenLinks: [] }, input);
      return queryVault(await loadVault(opts.vaultDir), parsed.data);
    },
  };
}
