import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema';

const root = resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const headings = read(file)
    .replace(/^```[\s\S]*?^```/gm, '')
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l));
  return new Set(headings.map((h) => slug(h.replace(/^#+ /, ''))));
}

/** A path as a page names it exists; a glob (`tests/*.yaml`) only needs the folder before its first `*`. */
function pathExists(path: string): boolean {
  const star = path.indexOf('*');
  if (star < 0) return existsSync(join(root, path));
  const folder = path.slice(0, star).replace(/[^/]*$/, '');
  return existsSync(join(root, folder)) && statSync(join(root, folder)).isDirectory();
}

const REPO_PATH = /(?<![\w./-])(?:src|test|electron|renderer|scripts|deploy|docs|intelligence-artifacts|kb|\.opencode|\.ci)\/[\w./*-]*[\w*/]/g;

describe('the README and docs/ stay true', () => {
  it('documents every environment variable of src/config/schema.ts in docs/configuration.md', () => {
    const tableNames = new Set(
      read('docs/configuration.md')
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .flatMap((l) => [...l.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)),
    );
    expect(Object.keys(configSchema.shape).filter((name) => !tableNames.has(name))).toEqual([]);
  });

  it('keeps the two set-up commands, the ones .ci/run runs, in a README of about 200 lines', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm start      # the tray app (Electron)');
    expect(readme).toContain('npm ci && npm test       # the whole test suite');
    const ciCommands = read('.ci/run')
      .split('\n')
      .filter((l) => /^npm /.test(l));
    expect(ciCommands.slice(-2)).toEqual(['npm ci --no-audit --no-fund', 'npm test']);
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('names only files and folders that exist', () => {
    // opencode-runtime.md describes opencode's own layout in any project, not files of this one.
    const missing = pages.filter((page) => page !== 'docs/opencode-runtime.md').flatMap((page) => [...read(page).matchAll(REPO_PATH)].map((m) => m[0]).filter((p) => !pathExists(p)).map((p) => `${page}: ${p}`));
    expect(missing).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const path = file === '' ? page : relative(root, resolve(root, dirname(page), file));
        if (!existsSync(join(root, path))) broken.push(`${page}: ${target}`);
        else if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
