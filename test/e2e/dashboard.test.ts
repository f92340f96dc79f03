import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { evidenceBundleSchema, verifyEvidenceBundle } from '../../src/core/incidents/evidence-bundle';
import { connectMcp } from '../helpers/mcp-client';
import { repoRoot } from '../helpers/opencode';
import { CHROMIUM, NO_CHROMIUM_REASON, openBrowser, type TestBrowser } from './helpers/browser';
import { buildRendererForTest } from './helpers/build-renderer';
import { startUiRelay, type UiRelay } from './helpers/ui-relay';
import { createLab, type Lab } from '../../harness/ios-lab/lab';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { labAddressBook, loadInventory } from '../../harness/ios-lab/inventory';
import { planViewOf } from '../../src/core/approvals/plan-view';
import { untilIncident } from '../helpers/incident-waits';

/** How long a page may take to show something on a loaded machine: a hang guard, not a speed bar. */
const GUARD_MS = 60_000;

const run = promisify(execFile);
const logger = pino({ level: 'silent' });
const COMMANDS = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

let distDir: string;
let env: UiRelay;
let browser: TestBrowser;
let mcp: Awaited<ReturnType<typeof connectMcp>>;
let incidentId: string;
let lab: Lab;

beforeAll(async () => {
  if (!CHROMIUM) return;
  // The simulated lab in process: the relay dry-runs each device of a plan on it, as on real routers.
  const inventory = await loadInventory();
  lab = createLab({ inventory, convergeDelayMs: 0 });
  const devices = { tools: createLabDeviceTools(lab), addressBook: labAddressBook(inventory) };
  [distDir, env] = await Promise.all([buildRendererForTest(), Promise.resolve()]).then(async ([dir]) => [dir, await startUiRelay({ distDir: dir, logger, env: { APPROVAL_WHEN_UNATTENDED: 'approve' }, devices })]);
  browser = await openBrowser(env.url);
  mcp = await connectMcp(`${env.url}/mcp`, env.toolsToken);
});

afterAll(async () => {
  await mcp?.close();
  await browser?.close();
  await env?.stop();
  if (distDir) rmSync(distDir, { recursive: true, force: true });
});

const postAlert = async (device: string) => {
  const res = await request(`${env.url}/fault-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(buildSplunkAlert({ device })),
  });
  return (await res.body.json()) as { status: string; incident_id: string; session_id: string | null };
};

/** The same alert-dependent parts in both texts: the alert's time (epoch, sid, log stamp). */
const normaliseTimes = (text: string) =>
  text
    .replace(/_at_\d{10}_\d+/g, '_at_EPOCH_MS')
    .replace(/\b\d{10}\b/g, 'EPOCH')
    .replace(/\d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}/g, 'STAMP');

if (!CHROMIUM) console.warn(`e2e: skipped, ${NO_CHROMIUM_REASON}`);

describe.skipIf(!CHROMIUM)('the read-only dashboard in Chromium, against the real relay and runtime', () => {
  it('shows a posted alert in the list live, without reload', async () => {
    const { page } = browser;
    await page.goto(`${env.url}/ui/`);
    await page.getByText('No incidents yet').waitFor({ timeout: GUARD_MS });
    // A standing warning stays on every page while the demo-only setting is on.
    await page.getByRole('alert', { name: 'Configuration warnings' }).getByText(/APPROVAL_WHEN_UNATTENDED=approve/).waitFor({ timeout: GUARD_MS });

    const row = page.getByRole('link', { name: /R-E2E-1 · 10\.0\.0\.2\s*,\s*INC-\S+ · AD000002/ });
    const [, accepted] = await Promise.all([row.waitFor({ state: 'visible', timeout: GUARD_MS }), postAlert('R-E2E-1')]);
    expect(['accepted', 'queued']).toContain(accepted.status);
    incidentId = accepted.incident_id;
    expect(await row.getAttribute('data-incident-id')).toBe(incidentId);
    await browser.screenshot('01-incident-list');
  });

  it('grows the open incident\'s timeline live: the real agent run, a notification, an approval with its exact commands', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: /R-E2E-1 · 10\.0\.0\.2\s*,\s*INC-\S+ · AD000002/ }).click();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText(`Alert AD000002 for R-E2E-1 accepted`).waitFor({ timeout: GUARD_MS });
    // The real runtime's own events, mapped by the relay and streamed to the page.
    await timeline.getByText('network-troubleshooter started').waitFor({ timeout: GUARD_MS });

    const notified = await mcp.call('notify', { incident_id: incidentId, kind: 'step-progress', markdown: 'E2E step: neighbor 10.0.0.2 is Idle (Admin)' });
    expect(notified.isError, notified.text).toBe(false);
    await timeline.getByText('E2E step: neighbor 10.0.0.2 is Idle (Admin)').waitFor({ timeout: GUARD_MS });

    const asked = await mcp.call('request_approval', {
      incident_id: incidentId,
      summary: 'Neighbor 10.0.0.2 on R-E2E-1 is admin down; remove the shutdown',
      device: 'R-E2E-1',
      commands: COMMANDS,
      rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'],
    });
    expect(asked.json?.status, asked.text).toBe('pending');
    const approval = page.getByRole('region', { name: 'Approval' });
    await approval.getByText('Approval needed').waitFor({ timeout: GUARD_MS });
    expect(await approval.getByLabel('Commands').textContent()).toBe(COMMANDS.join('\n'));
    await approval.getByText('Read-only view').waitFor({ timeout: GUARD_MS });
    expect(await approval.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.getByRole('link', { name: /awaiting approval\s*,\s*\d+m left\s*,\s*R-E2E-1 · 10\.0\.0\.2\s*,\s*INC-\S+ · AD000002/ }).waitFor({ timeout: GUARD_MS });
    await browser.screenshot('02-incident-timeline-approval');
  });

  it('exports the open incident\'s evidence from its view: Markdown, and the JSON bundle whose hashes verify', async () => {
    const { page } = browser;
    const view = page.getByRole('region', { name: `Incident ${incidentId}` });
    const evidence = view.getByRole('group', { name: 'Export evidence' });
    const [md] = await Promise.all([page.waitForEvent('download', { timeout: GUARD_MS }), evidence.getByRole('button', { name: 'Export evidence' }).click()]);
    expect(md.suggestedFilename()).toBe(`${incidentId}-evidence.md`);
    const text = readFileSync(await md.path(), 'utf8');
    const request = env.relay.incidents.get(incidentId)!.approval_request!;
    expect(text).toContain(`# Evidence: ${incidentId}`);
    expect(text).toContain(`| Request id | ${request.request_id} |`);
    expect(text).toContain(COMMANDS.join('\n'));
    expect(text).toContain(request.lines_sha256);

    const [json] = await Promise.all([page.waitForEvent('download', { timeout: GUARD_MS }), evidence.getByRole('button', { name: 'JSON' }).click()]);
    expect(json.suggestedFilename()).toBe(`${incidentId}-evidence.json`);
    const bundle = evidenceBundleSchema.parse(JSON.parse(readFileSync(await json.path(), 'utf8')));
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    expect(bundle.approval_request).toMatchObject({ lines: COMMANDS, lines_sha256: request.lines_sha256, lines_sha256_matches: true });
    expect(bundle.change.result).toBe('not_applied');
  });

  it('shows a plan grouped by device: each device\'s lines, the relay\'s preview on it and its rollback, as the relay computed them', async () => {
    const { page } = browser;
    lab.inject({ fault: 'bgp_password_mismatch', device: 'R1', neighbor: '10.0.0.2' });
    const res = await request(`${env.url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(buildSplunkAlert({ alertDefId: 'AD000009', device: 'R1', neighbor: '10.0.0.2' })) });
    const id = ((await res.body.json()) as { incident_id: string }).incident_id;
    await untilIncident(env.relay, id, (i) => i.state === 'running');
    const plan = [
      { device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 password'] },
      { device: 'R2', commands: ['router bgp 65002', 'neighbor 10.0.0.1 description R1 password removed'] },
    ];
    const asked = await mcp.call('request_approval', { incident_id: id, summary: 'Take the password off both ends', plan });
    expect(asked.json?.status, asked.text).toBe('pending');
    const view = planViewOf(env.relay.incidents.get(id)!.approval_request)!;
    // The relay's dry run on each device changes something there (R1 loses its password line, R2's description is replaced); each rollback undoes it.
    expect(view.devices.map((d) => [d.preview?.accepted, d.preview!.added.length + d.preview!.removed.length > 0])).toEqual([[true, true], [true, true]]);

    await page.getByRole('link', { name: 'Incidents' }).click();
    await page.locator(`[data-incident-id="${id}"]`).click();
    const groups = page.getByRole('region', { name: 'Approval' }).getByLabel('Plan', { exact: true });
    await groups.getByText(`One plan over R1, R2`).waitFor({ timeout: GUARD_MS });
    for (const [i, d] of view.devices.entries()) {
      const section = groups.getByRole('region', { name: `Plan device ${d.device}` });
      expect(await section.getByRole('heading').textContent()).toBe(`${i + 1}/2 ${d.device}`);
      expect(await section.getByLabel(`Lines for ${d.device}`).textContent()).toBe(d.lines.join('\n'));
      expect(await section.getByLabel('Would change').textContent()).toBe([...d.preview!.added.map((l) => `+ ${l}`), ...d.preview!.removed.map((l) => `- ${l}`)].join('\n'));
      const rollback = section.getByLabel(`Rollback of ${d.device} (computed by the relay from the configuration before)`);
      await rollback.getByText(d.rollback[0]!).waitFor({ timeout: GUARD_MS });
      expect(await rollback.getByLabel('Rollback', { exact: true }).textContent()).toBe(d.rollback.slice(1).join('\n'));
    }
    await browser.screenshot('02b-plan-by-device');
  });

  it('creates a headed incident whose prompt is the one npm run simulate -- --direct prints for the same inputs, and copies it', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Headed prompt' }).click();
    const form = page.getByRole('region', { name: 'Headed-mode prompt' });
    await form.getByLabel('Alert definition').selectOption('AD000002');
    await form.getByLabel('Device', { exact: true }).fill('R7');
    await form.getByLabel('neighbor_ip').fill('10.9.9.2');
    await form.getByLabel('vrf_name').fill('');
    await form.getByLabel('neighbor_as').fill('65010');
    await form.getByLabel('device_ip').fill('192.0.2.11');
    await form.getByLabel('Mode').selectOption('hybrid');
    await form.getByRole('button', { name: 'Create headed incident' }).click();
    const shown = (await form.getByLabel('Prompt').textContent({ timeout: GUARD_MS })) ?? '';
    const headedId = /"incident_id": "(HEADED-[^"]+)"/.exec(shown)?.[1];
    expect(headedId).toBeDefined();
    expect(env.relay.incidents.get(headedId!)).toMatchObject({ kind: 'headed', device_hostname: 'R7', mode: 'hybrid' });

    const { stdout } = await run(
      'npm',
      ['run', '--silent', 'simulate', '--', '--api', env.url, '--direct', '--device', 'R7', '--neighbor', '10.9.9.2', '--as', '65010', '--mode', 'hybrid'],
      { cwd: repoRoot, env: { ...process.env, REMEDIATION_MODE: '' } },
    );
    const sameId = (t: string) => normaliseTimes(t).replace(/"incident_id": "[^"]*"/, '"incident_id": "…"');
    expect(sameId(shown)).toBe(sameId(stdout.replace(/\n$/, '')));

    await form.getByRole('button', { name: 'Copy to clipboard' }).click();
    await form.getByText('Copied.').waitFor({ timeout: GUARD_MS });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await browser.screenshot('03-headed-prompt');
  });

  it('shows every setting read-only and no secret', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await settings.getByText('Read-only in the browser').waitFor({ timeout: GUARD_MS });
    expect(await settings.getByLabel('REMEDIATION_MODE').inputValue()).toBe('strict');
    expect(await settings.getByLabel('REMEDIATION_MODE').isDisabled()).toBe(true);
    expect(await settings.getByLabel('RELAY_TOOLS_TOKEN').inputValue()).toBe('');
    const html = await page.content();
    expect(html).not.toContain(env.toolsToken);
    expect(html).not.toContain(env.runtime.endpoint.password);
    await browser.screenshot('04-settings');
  });

  it('shows the runtime ok in the health panel, and degraded once the runtime is stopped', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Health' }).click();
    const health = page.getByRole('region', { name: 'Health' });
    const runtimeRow = health.locator('tr[data-check="agent_runtime"]');
    await runtimeRow.getByText('ok', { exact: true }).waitFor({ timeout: GUARD_MS });
    await health.getByLabel('overall ok').waitFor({ timeout: GUARD_MS });
    await browser.screenshot('05-health-ok');

    await env.runtime.stop();
    await health.getByRole('button', { name: 'Refresh' }).click();
    await runtimeRow.getByText('failed', { exact: true }).waitFor({ timeout: GUARD_MS });
    await health.getByLabel('overall degraded').waitFor({ timeout: GUARD_MS });
    await runtimeRow.getByText('start the agent runtime server; match the password').waitFor({ timeout: GUARD_MS });
    await browser.screenshot('06-health-degraded');
  });

  it('keeps thousands of incidents live with only the visible rows in the page', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Incidents' }).click();
    const fields = { alert_def_id: 'AD000002', mode: 'strict' as const, warnings: [], alert_vars: {}, promptTextFor: () => 'p' };
    // A thousand through the relay's own store and stream, beside the two alerts and the two headed incidents of the tests above (its disk index makes many more slow to create).
    for (let i = 0; i < 1000; i++) env.relay.incidents.create({ ...fields, device_hostname: `BULK-${i}`, dedup_key: `bulk-${i}` });
    await page.getByRole('link', { name: /BULK-999\s*,\s*INC-\S+ · AD000002/ }).waitFor({ timeout: GUARD_MS });
    await page.getByText('1004 open · 1004 total').waitFor({ timeout: GUARD_MS });
    const rows = await page.locator('.incident-row').count();
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(100);
    await browser.screenshot('07-many-incidents');
    // The only failed load allowed: /health/deep's 503 while the runtime was down. No CSP violation.
    expect(browser.problems.filter((p) => !p.includes('/health/deep'))).toEqual([]);
  });
});
