import { createRequire } from 'node:module';
import { readFileSync, rmSync } from 'node:fs';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { loadConfig } from '../../src/config/load';
import { createMemoryBackend, createPersistentStore } from '../../src/core/incidents/persistent-store';
import { startLab, type RunningLab } from '../../harness/ios-lab/server';
import { createRelay, type Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { createStubRuntime } from '../helpers/stub-runtime';
import { CHROMIUM, NO_CHROMIUM_REASON, openBrowser, type TestBrowser } from './helpers/browser';
import { buildRendererForTest } from './helpers/build-renderer';
import { testLogDir } from '../helpers/log-dir';
import { laptopRelayCluster } from '../../src/relay/laptop-cluster';

/** How long a page may take to show something on a loaded machine: a hang guard, not a speed bar. */
const GUARD_MS = 60_000;

const logger = pino({ level: 'silent' });
const TOKEN = 'layout-tools-token-9c1d';
const WIDTHS = [360, 1280, 3840] as const;
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let distDir: string;
let lab: RunningLab;
let relay: Relay;
let url: string;
let browser: TestBrowser;
let r1: string;

const postAlert = async (device: string, neighbor: string) => {
  const res = await request(`${url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(buildSplunkAlert({ device, neighbor })) });
  return ((await res.body.json()) as { incident_id: string }).incident_id;
};

beforeAll(async () => {
  if (!CHROMIUM) return;
  distDir = await buildRendererForTest();
  lab = await startLab({ port: 0, convergeDelayMs: 0, logger });
  const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', RELAY_TOOLS_TOKEN: TOKEN, DEVICE_MCP_URL: lab.mcpUrl, RELAY_PROJECT_DIR: '.', RELAY_LOG_DIR: testLogDir() });
  const store = createPersistentStore({ backend: createMemoryBackend(), retention: 1000, logger });
  relay = await createRelay({ cluster: laptopRelayCluster(config.RELAY_DATA_DIR), config, store, agent: createStubRuntime(), logger, extraChannels: () => ['desktop'], uiDistDir: distDir });
  url = await relay.listen({ port: 0, host: '127.0.0.1' });

  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  r1 = await postAlert('R1', '10.0.0.2');
  await postAlert('R2', '10.0.1.2');
  await postAlert('R3', '10.0.2.2');
  // What an agent does before asking: reads the device (the evidence), says what it found, asks.
  const devices = await connectMcp(`${url}/device-mcp`, TOKEN);
  const read = await devices.call('exec_cli', { incident_id: r1, device: 'R1', command: 'show ip bgp neighbors 10.0.0.2' });
  expect(read.isError, read.text).toBe(false);
  await devices.close();
  const tools = await connectMcp(`${url}/mcp`, TOKEN);
  await tools.call('notify', { incident_id: r1, kind: 'step-progress', markdown: '**Diagnosis**\n- neighbor 10.0.0.2 is Idle (Admin)\n- the shutdown is configured' });
  const asked = await tools.call('request_approval', {
    incident_id: r1,
    summary: 'Remove the administrative shutdown of neighbor 10.0.0.2 on R1',
    device: 'R1',
    commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'],
    rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'],
    artifact_ref: 'AD000002/RAW.yaml#repair_no_shutdown',
  });
  expect(asked.json?.status, asked.text).toBe('pending');
  await tools.close();
  browser = await openBrowser(url);
});

afterAll(async () => {
  await browser?.close();
  await relay?.close();
  await lab?.stop();
  if (distDir) rmSync(distDir, { recursive: true, force: true });
});

/**
 * No sideways scrolling: neither the page nor any panel inside it is wider than the window (a panel
 * that scrolls on its own would hide its right edge just the same). Returns the widest overshoot.
 */
const overflow = () =>
  browser.page.evaluate(() => {
    const limit = window.innerWidth;
    const over = [...document.querySelectorAll('main *')]
      .filter((e) => (e as HTMLElement).offsetParent !== null && !(e as HTMLElement).closest('.offscreen') && e.getBoundingClientRect().right > limit + 0.5)
      .map((e) => `<${e.tagName.toLowerCase()} class="${e.className}"> ends at ${Math.round(e.getBoundingClientRect().right)} px`);
    if (document.scrollingElement!.scrollWidth > limit) over.unshift(`the page is ${document.scrollingElement!.scrollWidth} px wide`);
    return over.slice(0, 5);
  });

async function axeSerious(): Promise<string[]> {
  // Through the debugger protocol, not a <script> tag: the page's CSP (scripts from self only) stays on.
  await browser.page.evaluate(readFileSync(axePath, 'utf8'));
  const result = (await browser.page.evaluate(() => (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run())) as {
    violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

if (!CHROMIUM) console.warn(`e2e: skipped, ${NO_CHROMIUM_REASON}`);

describe.skipIf(!CHROMIUM)('the triage UI at 3 a.m., from a phone to a 4K monitor', () => {
  for (const width of WIDTHS) {
    it(`fits ${width} px: the list and the open incident, without sideways scrolling, and passes an accessibility scan`, async () => {
      const { page } = browser;
      await page.setViewportSize({ width, height: width === 360 ? 740 : width === 3840 ? 2160 : 800 });
      await page.goto(`${url}/ui/#/incidents`);
      await page.getByRole('link', { name: /awaiting approval\s*,\s*\d+m left\s*,\s*R1 · 10\.0\.0\.2\s*,\s*INC-\S+ · AD000002/ }).waitFor({ timeout: GUARD_MS });
      expect(await overflow()).toEqual([]);
      await browser.screenshot(`layout-${width}-list`);
      expect(await axeSerious()).toEqual([]);

      await page.goto(`${url}/ui/#/incidents/${r1}`);
      await page.getByRole('region', { name: 'Approval' }).getByText('Approval needed').waitFor({ timeout: GUARD_MS });
      // Measured with the widest content in place: the evidence's long output lines.
      await page.getByRole('region', { name: 'Evidence' }).locator('pre').first().waitFor({ timeout: GUARD_MS });
      expect(await overflow()).toEqual([]);
      await browser.screenshot(`layout-${width}-incident`);
      expect(await axeSerious()).toEqual([]);
    });
  }

  it('filters by what needs me, by device, and searches by neighbor', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${url}/ui/#/incidents`);
    const list = page.getByRole('region', { name: 'Incidents' });
    const rows = list.locator('.incident-row');
    await rows.nth(2).waitFor({ timeout: GUARD_MS });
    const devicesShown = async () => (await rows.evaluateAll((els) => els.map((e) => e.querySelector('.device')?.firstChild?.textContent ?? ''))).sort();

    await list.getByRole('button', { name: /Needs me 1/ }).click();
    expect(await devicesShown()).toEqual(['R1']);
    await list.getByRole('button', { name: /All 3/ }).click();
    await list.getByLabel('Device', { exact: true }).selectOption('R2');
    expect(await devicesShown()).toEqual(['R2']);
    await list.getByLabel('Device', { exact: true }).selectOption('');
    await list.getByLabel('Search incidents by id, device or neighbor').fill('10.0.2.2');
    expect(await devicesShown()).toEqual(['R3']);
    await list.getByLabel('Search incidents by id, device or neighbor').fill('');
    expect(await devicesShown()).toEqual(['R1', 'R2', 'R3']);
  });

  it('moves through the list with the keyboard and opens an incident with Enter', async () => {
    const { page } = browser;
    await page.goto(`${url}/ui/#/incidents`);
    const rows = page.locator('.incident-row');
    await rows.nth(2).waitFor({ timeout: GUARD_MS });
    await rows.first().focus();
    await page.keyboard.press('ArrowDown');
    const second = await rows.nth(1).getAttribute('data-incident-id');
    await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.incidentId === id, second);
    await page.keyboard.press('End');
    const last = await rows.nth(2).getAttribute('data-incident-id');
    await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.incidentId === id, last);
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => window.location.hash === `#/incidents/${id}`, last);
  });

  it('puts the evidence beside the approval and shows the agents\' words as quoted text, never as our markup', async () => {
    const { page } = browser;
    await page.goto(`${url}/ui/#/incidents/${r1}`);
    const approval = page.getByRole('region', { name: 'Approval' });
    const evidence = approval.getByRole('region', { name: 'Evidence' });
    await evidence.getByText('R1# show ip bgp neighbors 10.0.0.2').waitFor({ timeout: GUARD_MS });
    // The whole output, not its first line.
    expect(await evidence.locator('pre').first().textContent()).toMatch(/BGP neighbor is 10\.0\.0\.2[\s\S]*Administratively shut down[\s\S]*BGP state = Idle/);
    await approval.getByText('AD000002/RAW.yaml#repair_no_shutdown').waitFor();
    // Where the run is: the approval's time left, its RAW step from the device calls, time elapsed.
    expect(await page.getByLabel('Progress').textContent()).toMatch(/^approval \d+m( \d+s)? left · step 2\/8 validate_neighbor_state · (\d+m( \d+s)?|\d+s) elapsed$/);
    await approval.getByText(/sent to tray/).waitFor();
    expect(await approval.getByLabel('Rollback', { exact: true }).textContent()).toBe('router bgp 65001\n neighbor 10.0.0.2 shutdown');
    // Beside the lines, the lab's dry run of them.
    expect(await approval.getByLabel('Would change').textContent()).toBe('- router bgp 65001 > neighbor 10.0.0.2 shutdown');
    await page.getByRole('tab', { name: /Timeline/ }).click().catch(() => undefined);
    const timeline = page.getByRole('list', { name: 'Timeline' });
    const said = timeline.locator('li', { hasText: 'neighbor 10.0.0.2 is Idle (Admin)' }).locator('blockquote.agent-quote').first();
    await said.waitFor({ timeout: GUARD_MS });
    // The agent's Markdown stays text inside the quote: no heading, list or bold of ours.
    expect(await said.textContent()).toContain('**Diagnosis**');
    expect(await timeline.locator('strong', { hasText: 'Diagnosis' }).count()).toBe(0);
    expect(await said.locator('ul, ol, h1, h2, h3, strong').count()).toBe(0);
  });
});
