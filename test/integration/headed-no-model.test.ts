import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundAlertSchema } from '../../src/adapters/alert-sources/schema';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { startHeadlessRelay, type RunningRelay } from '../../src/relay/start-headless';
import { isolatedOpencodeEnv, observerClient, repoRoot } from '../helpers/opencode';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';

const run = promisify(execFile);

/**
 * `npm run headed` starts its run on the relay's runtime itself, not through the dispatcher: with no
 * model configured, opencode would run it on a hosted default model nobody chose. The relay's real
 * embedded runtime here has no model at all.
 */
describe('npm run headed without a configured model', () => {
  let relay: RunningRelay;
  const dataDir = tempDir('headed-no-model-');

  beforeAll(async () => {
    relay = await startHeadlessRelay({
      env: { RELAY_DATA_DIR: path.join(dataDir, 'relay'), RELAY_LOG_DIR: path.join(dataDir, 'logs'), WEBHOOK_SECRET: 'splunk-secret', AGENT_SPARE_SESSION: 'off' },
      // Away from the user's opencode folders, and no OPENCODE_CONFIG_CONTENT: no model.
      runtimeEnv: isolatedOpencodeEnv(repoRoot),
      logger: silent,
      port: 0,
    });
  }, 240_000);
  afterAll(async () => relay?.stop());

  it('refuses before the terminal UI opens, naming the setting, and starts nothing on the runtime', async () => {
    const headed = run(process.execPath, ['--import', 'tsx', 'scripts/headed.ts', '--data-dir', path.join(dataDir, 'relay'), '--secret', 'splunk-secret', '--device', 'R1', '--neighbor', '10.0.0.2'], {
      cwd: repoRoot,
      env: { ...process.env, TMPDIR: dataDir },
    });
    const failed = await headed.then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).not.toBe(0);
    expect(failed?.stderr).toContain('runs_refused: No run starts: no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT.');
    // No headed incident was made for a run that cannot start, and the runtime has no session.
    expect(relay.relay.incidents.list()).toEqual([]);
    const runtime = observerClient(relay.embedded!.endpoint);
    expect(await runtime.listSessions()).toEqual([]);
    await runtime.close();
  }, 120_000);

  it('refuses to bind a terminal to an incident taken over by hand as well', async () => {
    const res = await relay.relay.app.inject({
      method: 'POST',
      url: '/headed/INC-NOPE/terminal',
      headers: { authorization: `Bearer ${relay.relay.terminalSecret}`, 'content-type': 'application/json' },
      payload: { session_id: 'ses_x' },
    });
    // Unknown incident first: the gate is asked only for a headed incident about to be bound.
    expect(res.statusCode).toBe(404);
    // A headed incident made before the model went missing (the tray's prompt copier), taken over with --incident.
    const { incident } = await relay.relay.startHeaded(inboundAlertSchema.parse(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })));
    const bind = await relay.relay.app.inject({
      method: 'POST',
      url: `/headed/${incident.incident_id}/terminal`,
      headers: { authorization: `Bearer ${relay.relay.terminalSecret}`, 'content-type': 'application/json' },
      payload: { session_id: 'ses_x' },
    });
    expect(bind.statusCode).toBe(503);
    expect(bind.json()).toEqual({ error: { code: 'runs_refused', message: 'No run starts: no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT.' } });
    expect(relay.relay.incidents.get(incident.incident_id)?.session_id ?? null).toBeNull();
  });
});
