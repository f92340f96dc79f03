import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from '../../helpers/opencode';

/**
 * A Chromium to drive: CHROMIUM_PATH, Playwright's own download, Debian's chromium, or Google
 * Chrome; undefined when none is there (the browser tests are then skipped, saying what to install).
 */
function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, playwrightsOwn(), '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
  return candidates.find((p): p is string => Boolean(p && existsSync(p)));
}
function playwrightsOwn(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}
export const CHROMIUM = findChromium();
export const NO_CHROMIUM_REASON = 'no Chromium found (set CHROMIUM_PATH, or apt-get install -y chromium)';
export const SCREENSHOTS = join(repoRoot, 'test-results', 'e2e');

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP violations seen so far. */
  problems: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a fresh profile; no traffic beyond loopback. */
export async function openBrowser(origin: string): Promise<TestBrowser> {
  if (!CHROMIUM) throw new Error(NO_CHROMIUM_REASON);
  const profile = mkdtempSync(join(tmpdir(), 'fault-relay-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1440, height: 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(e.message));
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    problems,
    async screenshot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: false });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
