import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundAlertSchema } from '../../src/adapters/alert-sources/schema';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createSignInLinks, localOperator } from '../../src/relay/sign-in';
import { connectMcp } from '../helpers/mcp-client';
import { CHROMIUM, NO_CHROMIUM_REASON, openBrowser, type TestBrowser } from './helpers/browser';
import { buildRendererForTest } from './helpers/build-renderer';
import { startUiRelay, type UiRelay } from './helpers/ui-relay';

/** How long a page may take to show something on a loaded machine: a hang guard, not a speed bar. */
const GUARD_MS = 60_000;
const COMMANDS = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const signIn = createSignInLinks(localOperator('jane'));

let distDir: string;
let env: UiRelay;
let browser: TestBrowser;

beforeAll(async () => {
  if (!CHROMIUM) return;
  distDir = await buildRendererForTest();
  env = await startUiRelay({ distDir, logger: pino({ level: 'silent' }), withoutModel: true, signIn });
  browser = await openBrowser(env.url);
});

afterAll(async () => {
  await browser?.close();
  await env?.stop();
  if (distDir) rmSync(distDir, { recursive: true, force: true });
});

if (!CHROMIUM) console.warn(`e2e: skipped, ${NO_CHROMIUM_REASON}`);

describe.skipIf(!CHROMIUM)('the first hour in Chromium: a laptop relay without a model, its local operator signed in', () => {
  it('the sign-in link opens /ui as an approver; the Health page has a failing row for each failing check', async () => {
    const { page } = browser;
    const link = `${env.url}/ui?token=${signIn.issue()}`;
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/ui/');
    await page.getByRole('link', { name: 'Health' }).click();
    const health = page.getByRole('region', { name: 'Health' });
    await health.getByLabel('overall degraded').waitFor({ timeout: GUARD_MS });
    const model = health.locator('tr[data-check="model"]');
    await model.waitFor({ timeout: GUARD_MS });
    expect(await model.getAttribute('class')).toBe('row-failed');
    expect(await model.textContent()).toContain('no model configured');
    const runs = health.locator('tr[data-check="runs"].row-failed');
    expect(await runs.count()).toBe(1);
    expect(await runs.textContent()).toContain('no model configured');
    // Nothing degraded without a row saying why.
    expect(await health.locator('tr.row-failed').count()).toBeGreaterThan(0);
    expect(await page.locator('.badge.readonly').count()).toBe(0);
    await browser.screenshot('10-first-hour-health');
  });

  it('the signed-in local operator approves at /ui, recorded under their name with channel ui', async () => {
    const { page } = browser;
    // No run may start without a model, so POST /headed refuses (503 runs_refused): the incident this
    // approval belongs to is made through the relay's headed intake itself, as a run already going.
    const incidentId = (await env.relay.startHeaded(inboundAlertSchema.parse(buildSplunkAlert({ device: 'R-E2E-9' })))).incident.incident_id;
    const mcp = await connectMcp(`${env.url}/mcp`, env.toolsToken);
    const asked = await mcp.call('request_approval', { incident_id: incidentId, summary: 'remove the shutdown', device: 'R-E2E-9', commands: COMMANDS });
    await mcp.close();
    expect(asked.json?.status, asked.text).toBe('pending');

    await page.goto(`${env.url}/ui/#/incidents/${encodeURIComponent(incidentId)}`);
    const approval = page.getByRole('region', { name: 'Approval' });
    await approval.getByText('Approval needed').waitFor({ timeout: GUARD_MS });
    await approval.getByLabel('Reason').fill('first hour');
    await approval.getByRole('button', { name: 'Approve' }).click();
    await approval.getByRole('status').getByText('Decision sent').waitFor({ timeout: GUARD_MS });
    expect(env.relay.incidents.get(incidentId)?.approval).toMatchObject({ decision: 'APPROVED', by: 'jane', channel: 'ui', reason: 'first hour' });
    await browser.screenshot('11-first-hour-approved');
  });
});
