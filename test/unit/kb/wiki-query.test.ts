import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KbVaultError, loadVault, type Vault } from '../../../src/runbooks/kb/vault';
import { createWikiQuery, DEPTH_CHAR_CAP, KbQueryError, queryVault } from '../../../src/runbooks/kb/wiki-query';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const demoVault = path.join(repoRoot, 'kb');
let vault: Vault;
const temps: string[] = [];

beforeAll(async () => {
  vault = await loadVault(demoVault);
});
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempVault(pages: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kb-vault-'));
  temps.push(dir);
  for (const [file, text] of Object.entries(pages)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const page = (title: string, body: string, extra = '') => `---\ntitle: ${title}\ntags: [test]\nupdated: 2026-11-01\n${extra}---\n${body}\n`;

describe('the demo vault', () => {
  it('has valid front matter on every page and no link that names a missing page', () => {
    expect(vault.pages.length).toBeGreaterThanOrEqual(15);
    expect(vault.brokenLinks).toEqual([]);
    expect(vault.byId.has('README')).toBe(false);
    for (const id of ['policies/approval-policy', 'policies/escalation-path', 'policies/business-rules', 'policies/sla', 'operations/maintenance-windows', 'operations/known-issues', 'incidents/incident-history']) {
      expect(vault.byId.has(id), id).toBe(true);
    }
  });

  it('describes every router of the lab with its AS number and BGP neighbors', () => {
    const inventory = parseYaml(readFileSync(path.join(repoRoot, 'harness/ios-lab/inventory.yaml'), 'utf8')) as {
      devices: { hostname: string; bgp: { as: number; neighbors: { address: string }[] } }[];
    };
    for (const device of inventory.devices) {
      const notes = vault.byId.get(`devices/${device.hostname.toLowerCase()}`);
      expect(notes, device.hostname).toBeDefined();
      expect(notes!.body).toContain(`router bgp ${device.bgp.as}`);
      for (const n of device.bgp.neighbors) expect(notes!.body, `${device.hostname} ${n.address}`).toContain(n.address);
    }
  });
});

describe('wiki_query depth quick', () => {
  it('answers an R1 BGP neighbor shutdown question with the known-issue and maintenance sections, not whole pages', () => {
    const answer = queryVault(vault, { query: 'R1 BGP neighbor 10.0.0.6 shutdown', depth: 'quick' });
    expect(answer.hits.length).toBeGreaterThan(0);
    expect(answer.hits.length).toBeLessThanOrEqual(4);
    expect(answer.hits.every((h) => h.kind === 'section')).toBe(true);
    expect(answer.hits[0]).toMatchObject({ page: 'operations/known-issues', heading: expect.stringContaining('KI-0011') });
    expect(answer.hits.map((h) => h.page)).toContain('operations/maintenance-windows');
    expect(answer.text).toContain('Do not remove it and do not ask for an approval');
    // Only the matching section of the known-issues page, not its other issues.
    expect(answer.text).not.toContain('KI-0015');
    expect(answer.text.length).toBeLessThanOrEqual(DEPTH_CHAR_CAP.quick);
  });
});

describe('wiki_query depth standard', () => {
  it('returns whole matching pages', () => {
    const answer = queryVault(vault, { query: 'approval policy', depth: 'standard' });
    expect(answer.hits[0]).toMatchObject({ kind: 'page', page: 'policies/approval-policy' });
    expect(answer.hits.every((h) => h.kind === 'page')).toBe(true);
    for (const heading of ['## Who may approve what', '## Rules for the approval card', '## Change freeze']) expect(answer.text).toContain(heading);
    expect(answer.text.length).toBeLessThanOrEqual(DEPTH_CHAR_CAP.standard);
  });

  it('defaults to standard when no depth is given', () => {
    expect(queryVault(vault, { query: 'approval policy' }).depth).toBe('standard');
  });
});

describe('wiki_query depth deep', () => {
  it('adds the pages the matches link to and the matching incident history', () => {
    const query = 'R1 BGP neighbor 10.0.0.6 shutdown';
    const standard = queryVault(vault, { query, depth: 'standard' });
    const deep = queryVault(vault, { query, depth: 'deep' });
    expect(standard.hits.some((h) => h.kind === 'linked' || h.kind === 'incident')).toBe(false);

    const linked = deep.hits.filter((h) => h.kind === 'linked');
    expect(linked.length).toBeGreaterThan(0);
    for (const hit of linked) expect(vault.byId.get(hit.via!)!.links).toContain(hit.page);
    expect(linked.map((h) => h.page)).toContain('policies/escalation-path');

    const history = deep.hits.filter((h) => h.kind === 'incident');
    expect(history[0]?.page).toBe('incidents/2026-06-02-inc-ad000002-r1-10-0-0-6');
    expect(deep.text).toContain('INC-20260602T221418Z');
    expect(deep.text.length).toBeGreaterThan(standard.text.length);
    expect(deep.text.length).toBeLessThanOrEqual(DEPTH_CHAR_CAP.deep);
  });
});

describe('wiki_query answers', () => {
  it('are the same text for the same query and vault', async () => {
    const again = await loadVault(demoVault);
    for (const depth of ['quick', 'standard', 'deep'] as const) {
      expect(queryVault(again, { query: 'escalation path CUST-A', depth }).text).toBe(queryVault(vault, { query: 'escalation path CUST-A', depth }).text);
    }
  });

  it('say plainly when nothing matches', () => {
    const answer = queryVault(vault, { query: 'zebra quokka', depth: 'quick' });
    expect(answer.hits).toEqual([]);
    expect(answer.text).toContain('No KB page matches this query.');
  });

  it('stay within the size cap of the depth and say what was left out', () => {
    const filler = Array.from({ length: 400 }, (_, i) => `- line ${i} about the flapping peer on R9`).join('\n');
    const dir = tempVault(Object.fromEntries(['a', 'b', 'c'].map((n) => [`${n}.md`, page(`Flapping peer ${n}`, `# ${n}\n\n## Notes\n\n${filler}`)])));
    return loadVault(dir).then((big) => {
      const answer = queryVault(big, { query: 'flapping peer R9', depth: 'standard' });
      expect(answer.truncated).toBe(true);
      expect(answer.text.length).toBeLessThanOrEqual(DEPTH_CHAR_CAP.standard);
      expect(answer.text).toMatch(/cut at the size cap|Not shown, size cap/);
    });
  });
});

describe('wiki_query errors', () => {
  it('rejects an empty query and an unknown depth with a sentence saying what is wrong', () => {
    expect(() => queryVault(vault, { query: '   ', depth: 'quick' })).toThrow(KbQueryError);
    expect(() => queryVault(vault, { query: '   ', depth: 'quick' })).toThrow(/query is empty/);
    expect(() => queryVault(vault, { query: 'R1', depth: 'medium' })).toThrow('depth must be one of quick, standard, deep');
    expect(() => queryVault(vault, { query: 'the of and', depth: 'quick' })).toThrow(/no searchable words/);
  });

  it('names every invalid page of a broken vault and answers no query from it', async () => {
    const dir = tempVault({
      'good.md': page('Good', 'fine'),
      'no-title.md': '---\ntags: [x]\nupdated: 2026-01-01\n---\nbody\n',
      'sub/bad-date.md': '---\ntitle: Bad date\nupdated: yesterday\n---\nbody\n',
    });
    const error = await loadVault(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KbVaultError);
    expect((error as KbVaultError).problems).toEqual([
      expect.stringMatching(/^no-title\.md: front matter title/),
      expect.stringMatching(/^sub\/bad-date\.md: front matter updated: expected YYYY-MM-DD/),
    ]);
    await expect(createWikiQuery({ vaultDir: dir }).query({ query: 'fine' })).rejects.toThrow(KbVaultError);
  });

  it('says which folder is missing', async () => {
    await expect(loadVault(path.join(tmpdir(), 'no-such-kb-vault'))).rejects.toThrow(/no-such-kb-vault cannot be read: ENOENT/);
  });
});

describe('createWikiQuery', () => {
  it('reads the vault on every query, so a curator\'s new page is found at once', async () => {
    const dir = tempVault({ 'one.md': page('One', '# One\n\n## Topic\n\nnothing relevant') });
    const wiki = createWikiQuery({ vaultDir: dir });
    expect((await wiki.query({ query: 'generator drill', depth: 'quick' })).hits).toEqual([]);
    writeFileSync(path.join(dir, 'two.md'), page('Generator drill', '# Two\n\n## Window\n\nGenerator drill every Friday 10:00 UTC.', 'links: [one]\n'));
    const answer = await wiki.query({ query: 'generator drill', depth: 'quick' });
    expect(answer.hits[0]).toMatchObject({ page: 'two', heading: 'Window' });
  });
});
