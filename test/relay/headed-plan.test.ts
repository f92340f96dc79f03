import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePromptText } from '../../src/core/incidents/agent-prompt';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { labAddressBook, loadInventory } from '../../harness/ios-lab/inventory';
import { startLab } from '../../harness/ios-lab/server';
import { relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

/**
 * A headed run's prompt names the devices its RAW lets a plan change, found from the alert and the
 * inventory, exactly as a relay-started run's prompt does: the operator's agent knows the far end
 * before it asks for a plan over both routers.
 */
type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
let project: string;
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
  project = mkdtempSync(join(tmpdir(), 'fault-relay-headed-plan-'));
  cpSync('intelligence-artifacts', join(project, 'intelligence-artifacts'), { recursive: true });
  const raw = join(project, 'intelligence-artifacts', 'AD000002', 'RAW.yaml');
  writeFileSync(raw, readFileSync(raw, 'utf8').replace('\nsteps:\n', '\nplan_devices:\n  - { role: peer, description: The BGP peer, find: address_owner, input: neighbor_ip }\nsteps:\n'));
});
afterAll(async () => {
  await lab?.stop();
  rmSync(project, { recursive: true, force: true });
});

describe('a headed run of a RAW with plan devices', () => {
  it('lists the plan devices the relay found in the prompt to paste, as the relay-started prompt does', async () => {
    const relay = await relayForTest({
      agent: createStubRuntime(),
      env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: project },
      deviceTools: createLabDeviceTools(lab.lab),
      addressBook: labAddressBook(await loadInventory()),
    });
    try {
      const post = (url: string, device: string, neighbor: string) => relay.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device, neighbor })) });
      const headed = await post('/headed', 'R1', '10.0.0.2');
      expect(headed.statusCode).toBe(201);
      expect(parsePromptText(headed.json<{ prompt: string }>().prompt).plan_devices).toEqual([{ role: 'peer', device: 'R2' }]);
      // The relay's own run of the same fault on another router names its own peer the same way.
      const relayed = await post('/fault-alert', 'R2', '10.0.0.1');
      const id = relayed.json<{ incident_id: string }>().incident_id;
      expect(parsePromptText(relay.incidents.promptText(id)!).plan_devices).toEqual([{ role: 'peer', device: 'R1' }]);
    } finally {
      await relay.close();
    }
  });
});
