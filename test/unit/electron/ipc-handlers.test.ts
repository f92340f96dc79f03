import { writeFileSync } from 'node:fs';
import { tempDir } from '../../helpers/temp-dir';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDesktopApi } from '../../../electron/desktop-api';
import { createIpcHandlers } from '../../../electron/ipc/handlers';
import { createSenderCheck } from '../../../electron/ipc/trusted-sender';
import { createSecretStore } from '../../../electron/secrets';
import { createSettings } from '../../../electron/settings';
import { promptFor } from '../../helpers/prompt';
import { buildSplunkAlert } from '../../../src/adapters/alert-sources/sample';
import { loadConfig } from '../../../src/config/load';
import type { Relay } from '../../../src/relay/create-relay';
import type { RunningRelay } from '../../../src/relay/start-headless';
import { silent } from '../../helpers/relay';
import { awaitingApproval, desktopRelay } from './desktop-relay';
import { confStore, fakeSafeStorage } from './fakes';

const RENDERER = 'file:///opt/Fault%20Relay/resources/app.asar/dist-renderer/index.html';
const NOW = new Date('2026-11-21T10:00:00.123Z');
const ours = { senderFrame: { url: `${RENDERER}#/incidents`, parent: null } };

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

async function setUp(opts: { running?: boolean } = {}) {
  const logDir = tempDir('fault-relay-logs-');
  relay = await desktopRelay();
  const running = { relay, config: loadConfig({}), url: 'http://127.0.0.1:0', stop: async () => {} } as RunningRelay;
  const up = opts.running ?? true;
  const copied: string[] = [];
  const secrets = createSecretStore({ backend: confStore('secrets').conf, safeStorage: fakeSafeStorage(), platform: 'linux', logger: silent });
  const api = createDesktopApi({
    host: {
      current: () => (up ? running : undefined),
      require: () => {
        if (up) return running;
        throw new Error('the relay is not running: the port is already in use');
      },
      failure: () => (up ? undefined : 'the port is already in use'),
    },
    settings: createSettings({ backend: confStore('settings').conf, secrets, baseEnv: {} }),
    clipboard: { writeText: (t) => void copied.push(t) },
    user: 'oncall-jane',
    artifactsDir: 'intelligence-artifacts',
    now: () => NOW,
    sessionLogPath: (incident) => join(logDir, `${incident.incident_id}.md`),
  });
  const handlers = createIpcHandlers({ api, isTrusted: createSenderCheck(RENDERER), logger: silent });
  return { r: relay, handlers, copied, logDir };
}

describe('IPC handlers', () => {
  it('answer our own window: incidents, and a decision carrying the OS user on the desktop channel', async () => {
    const { r, handlers } = await setUp();
    const id = await awaitingApproval(r);
    const list = (await handlers.listIncidents(ours)) as { incident_id: string; state: string }[];
    expect(list.map((i) => [i.incident_id, i.state])).toEqual([[id, 'awaiting_approval']]);
    expect(list[0]).not.toHaveProperty('dedup_key');

    const rid = r.incidents.get(id)!.approval_request!.request_id;
    expect(await handlers.decide(ours, id, 'REQ-AAAA-AAAA', 'APPROVED')).toEqual({ status: 'stale_request', request_id: 'REQ-AAAA-AAAA', pending_request_id: rid });
    expect(await handlers.decide(ours, id, rid, 'APPROVED', 'looks right')).toEqual({ status: 'accepted' });
    expect(r.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'oncall-jane', channel: 'desktop', reason: 'looks right' });
    expect(await handlers.decide(ours, id, rid, 'DENIED')).toMatchObject({ status: 'already_decided', by: 'oncall-jane', channel: 'desktop', decision: 'APPROVED' });
  });

  it('acts on an incident as the tray user, refusing what the relay refuses and a malformed action', async () => {
    const { r, handlers } = await setUp();
    const id = await awaitingApproval(r);
    expect(await handlers.incidentAction(ours, id, { kind: 'acknowledge' })).toEqual({ status: 'done', message: 'Acknowledged: pages stop' });
    expect(r.incidents.timeline(id).filter((e) => e.type === 'incident.acknowledged')).toMatchObject([{ by: 'oncall-jane', channel: 'tray' }]);
    expect(await handlers.incidentAction(ours, id, { kind: 'close', reason: 'handled' })).toEqual({ status: 'refused', message: expect.stringMatching(/awaiting approval: a run still going cannot be closed/) });
    // No OPERATORS_FILE: nobody to assign to.
    expect(await handlers.incidentAction(ours, id, { kind: 'assign', to: 'bo@example.net' })).toEqual({ status: 'refused', message: expect.stringMatching(/not in OPERATORS_FILE/) });
    await expect(handlers.incidentAction(ours, id, { kind: 'close' })).rejects.toThrow(/incidentAction/);
  });

  it.each([
    ['another page', { url: 'https://evil.example/index.html', parent: null }],
    ['another file', { url: 'file:///tmp/index.html', parent: null }],
    ['a subframe of our page', { url: RENDERER, parent: {} }],
    ['a frame that is gone', null],
  ])('refuse %s, and nothing changes', async (_name, frame) => {
    const { r, handlers } = await setUp();
    const id = await awaitingApproval(r);
    await expect(handlers.decide({ senderFrame: frame }, id, 'REQ-AAAA-AAAA', 'APPROVED')).rejects.toThrow('decide: refused, the caller is not the Fault Relay window');
    await expect(handlers.listIncidents({ senderFrame: frame })).rejects.toThrow(/refused/);
    expect(r.incidents.get(id)?.state).toBe('awaiting_approval');
  });

  it('reject a bad argument with a clear error naming it, and nothing changes', async () => {
    const { r, handlers, copied } = await setUp();
    const id = await awaitingApproval(r);
    await expect(handlers.decide(ours, id, 'REQ-AAAA-AAAA', 'MAYBE')).rejects.toThrow(/^decide: argument 3: Invalid option: expected one of "APPROVED"\|"DENIED"$/);
    await expect(handlers.decide(ours, id, 'REQ-AAAA-AAAA', 'APPROVED', 'x'.repeat(501))).rejects.toThrow(/^decide: argument 4: /);
    await expect(handlers.getIncident(ours, '../../etc/passwd')).rejects.toThrow(/^getIncident: argument 1: expected an incident id/);
    await expect(handlers.copyText(ours, { text: 'x' })).rejects.toThrow(/^copyText: argument 1: /);
    await expect(handlers.directPrompt(ours, { alert_def_id: 'AD000002', device: 'R1', mode: 'yolo', vars: {} })).rejects.toThrow(/^directPrompt: argument 1 \(mode\): /);
    expect(r.incidents.get(id)?.state).toBe('awaiting_approval');
    expect(copied).toEqual([]);
  });

  it('create the headed incident on the relay, with the prompt `simulate --direct` prints for the same inputs', async () => {
    const { r, handlers } = await setUp();
    const input = { alert_def_id: 'AD000002', device: 'R9', mode: 'hybrid', vars: { neighbor_ip: '10.9.9.9' } };
    const text = (await handlers.directPrompt(ours, input)) as string;
    const id = /"incident_id": "(HEADED-[^"]+)"/.exec(text)?.[1] ?? '';
    expect(r.incidents.get(id)).toMatchObject({ kind: 'headed', device_hostname: 'R9', mode: 'hybrid', state: 'running' });
    const expected = promptFor(buildSplunkAlert({ device: 'R9', neighbor: '10.9.9.9', now: NOW }), id, 'hybrid');
    expect(text).toBe(expected);
    await expect(handlers.directPrompt(ours, { ...input, incident_id: 'HEADED-TEST-1' })).rejects.toThrow(/assigned by the relay/);
  });

  it("return an incident's session log once written, null before, and refuse unknown incidents", async () => {
    const { r, handlers, logDir } = await setUp();
    const id = await awaitingApproval(r);
    expect(await handlers.sessionLog(ours, id)).toBeNull();
    writeFileSync(join(logDir, `${id}.md`), '# Session log\n');
    expect(await handlers.sessionLog(ours, id)).toBe('# Session log\n');
    await expect(handlers.sessionLog(ours, 'INC-19990101T000000Z')).rejects.toThrow('no incident INC-19990101T000000Z');
  });

  it('report a relay that is not running instead of failing: health degraded with the reason', async () => {
    const { handlers } = await setUp({ running: false });
    expect(await handlers.listIncidents(ours)).toEqual([]);
    expect(await handlers.health(ours)).toMatchObject({ status: 'degraded', checks: { agent_runtime: { ok: false, error: 'the relay is not running: the port is already in use' } } });
    await expect(handlers.decide(ours, 'INC-20261121T100000Z', 'REQ-AAAA-AAAA', 'APPROVED')).rejects.toThrow(/the relay is not running/);
  });
});
