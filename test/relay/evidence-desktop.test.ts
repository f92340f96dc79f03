import { afterEach, describe, expect, it } from 'vitest';
import { createDesktopApi } from '../../electron/desktop-api';
import { createIpcHandlers } from '../../electron/ipc/handlers';
import { createSenderCheck } from '../../electron/ipc/trusted-sender';
import type { EvidenceFile } from '../../renderer/bridge/contract';
import { linesSha256 } from '../../src/core/approvals/lines';
import { loadConfig } from '../../src/config/load';
import { evidenceBundleSchema, verifyEvidenceBundle } from '../../src/core/incidents/evidence-bundle';
import type { Relay } from '../../src/relay/create-relay';
import type { RunningRelay } from '../../src/relay/start-headless';
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

const SECRET = 'tray-evidence-secret-3319';
const COMMANDS = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const RENDERER = 'file:///opt/Fault%20Relay/resources/app.asar/dist-renderer/index.html';
const ours = { senderFrame: { url: `${RENDERER}#/incidents`, parent: null } };

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

/** The tray's side of the Bridge over a relay that wants its secret, as main.ts wires it. */
async function setUp() {
  const env = { WEBHOOK_SECRET: SECRET };
  relay = await relayForTest({ agent: createStubRuntime(), env, extraChannels: () => ['desktop'] });
  const running = { relay, config: loadConfig(env), url: 'http://127.0.0.1:0', stop: async () => {} } as RunningRelay;
  const api = createDesktopApi({
    host: { current: () => running, require: () => running, failure: () => undefined },
    settings: { fields: () => [], save: () => ({ ok: true, restartNeeded: false }) } as unknown as Parameters<typeof createDesktopApi>[0]['settings'],
    clipboard: { writeText: () => {} },
    user: 'oncall-jane',
    artifactsDir: 'intelligence-artifacts',
  });
  const handlers = createIpcHandlers({ api, isTrusted: createSenderCheck(RENDERER), logger: silent });
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }, payload: JSON.stringify(ad000002()) });
  const id = res.json().incident_id as string;
  expect((await relay.approvals.request({ incident_id: id, summary: 'Re-enable the BGP neighbor', device: 'R1', commands: COMMANDS })).status).toBe('pending');
  return { id, handlers };
}

describe('Export evidence in the tray window', () => {
  it('gives the window the same bundle as GET /incidents/:id/evidence, decided in the tray', async () => {
    const { id, handlers } = await setUp();
    const rid = relay!.incidents.get(id)!.approval_request!.request_id;
    expect(await handlers.decide(ours, id, rid, 'APPROVED')).toEqual({ status: 'accepted' });

    const md = (await handlers.exportEvidence(ours, id, 'md')) as EvidenceFile;
    expect(md).toMatchObject({ filename: `${id}-evidence.md`, contentType: expect.stringMatching(/^text\/markdown/) });
    expect(md.body).toContain(`# Evidence: ${id}`);
    expect(md.body).toContain('| By | oncall-jane |');
    expect(md.body).toContain('| Channel | desktop |');
    expect(md.body).not.toContain(SECRET);

    const json = (await handlers.exportEvidence(ours, id, 'json')) as EvidenceFile;
    const bundle = evidenceBundleSchema.parse(JSON.parse(json.body));
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    expect(bundle.approval_request).toMatchObject({ request_id: rid, lines: COMMANDS, lines_sha256: linesSha256(COMMANDS) });
    expect(bundle.decision).toMatchObject({ decision: 'APPROVED', by: 'oncall-jane', channel: 'desktop', request_id: rid });
  });

  it('refuses a format it does not make and an incident it does not have, in words', async () => {
    const { handlers } = await setUp();
    await expect(handlers.exportEvidence(ours, 'INC-20000101T000000Z', 'md')).rejects.toThrow('No incident INC-20000101T000000Z');
    await expect(handlers.exportEvidence(ours, 'INC-20000101T000000Z', 'pdf')).rejects.toThrow(/exportEvidence: argument 2/);
  });
});
