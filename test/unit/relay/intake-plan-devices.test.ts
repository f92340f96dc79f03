import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeAlert } from '../../../src/adapters/alert-sources/normalize';
import { parsePromptText } from '../../../src/core/incidents/agent-prompt';
import { buildSplunkAlert } from '../../../src/adapters/alert-sources/sample';
import { inboundAlertSchema } from '../../../src/adapters/alert-sources/schema';
import type { SourcedAlert } from '../../../src/core/incidents/alert-source';
import { setUpConfirmedApply } from '../../../src/core/changes/confirmed-apply-setup';
import type { DeviceTools } from '../../../src/core/changes/device-contract';
import type { Dispatcher } from '../../../src/core/delivery/dispatcher';
import { createIntake } from '../../../src/relay/intake';
import type { AddressBook } from '../../../src/runbooks/plan-devices';
import { silent } from '../../helpers/relay';
import { inMemoryIncidents, manualClock } from '../incidents/in-memory-incidents';
import { laptopCluster } from '../../../src/core/cluster/laptop';
const { owns } = laptopCluster({ relayTag: 'test' });

/** R1 and R2 share 10.0.0.0/30 on their GigabitEthernet1; R3 is elsewhere. */
const book: AddressBook = {
  devices: () => [
    { name: 'R1', addresses: { GigabitEthernet1: '10.0.0.1/30', Loopback0: '10.255.0.1/32' } },
    { name: 'R2', addresses: { GigabitEthernet1: '10.0.0.2/30', Loopback0: '10.255.0.2/32' } },
    { name: 'R3', addresses: { GigabitEthernet1: '10.0.9.1/30', Loopback0: '10.255.0.3/32' } },
  ],
};

function mtuAlert(vars: Record<string, string>, key: string): SourcedAlert {
  const body = buildSplunkAlert({ alertDefId: 'AD000008', device: 'R1' });
  Object.assign(body.result as Record<string, unknown>, vars);
  return { dedup_key: key, normalized: () => normalizeAlert(inboundAlertSchema.parse(body)) };
}

/** The relay's intake with its own plan-device lookup (the RAW's plan_devices, the inventory's addresses). */
function relayIntake() {
  const clock = manualClock();
  const { incidents } = inMemoryIncidents(clock);
  const confirmed = setUpConfirmedApply({
    incidents,
    upstream: {} as DeviceTools,
    artifactsDir: join(process.cwd(), 'intelligence-artifacts'),
    defaultWithinS: 60,
    clock,
    logger: silent,
    owns,
    addressBook: book,
  });
  const dispatcher = { submit: async () => {}, kick: () => {} } as unknown as Dispatcher;
  const intake = createIntake({ incidents, dispatcher, mode: 'strict', clock, logger: silent, deliveryWaitMs: 0, planDevicesFor: confirmed.planDevicesFor });
  return { incidents, accept: intake };
}

describe('the alert prompt names the plan devices the relay found', () => {
  it('gives the far end of the alerted link, by its inventory name, under the RAW role', async () => {
    const { incidents, accept } = relayIntake();
    const answer = await accept(mtuAlert({ interface: 'GigabitEthernet1' }, 'mtu-1'));
    const prompt = parsePromptText(incidents.promptText(answer.incident_id)!);
    expect(prompt.plan_devices).toEqual([{ role: 'far_end', device: 'R2' }]);
  });

  it('never takes a device from the alert text, and names none it could not find', async () => {
    const { incidents, accept } = relayIntake();
    // The alert claims a plan device of its own and names an interface with no address in the inventory.
    const answer = await accept(mtuAlert({ interface: 'GigabitEthernet9', plan_devices: 'far_end=R3', far_end: 'R3' }, 'mtu-2'));
    const text = incidents.promptText(answer.incident_id)!;
    expect(parsePromptText(text).plan_devices).toBeUndefined();
  });

  it('adds nothing to the prompt of a RAW without plan devices', async () => {
    const { incidents, accept } = relayIntake();
    const body = buildSplunkAlert({ alertDefId: 'AD000002' });
    const answer = await accept({ dedup_key: 'bgp-1', normalized: () => normalizeAlert(inboundAlertSchema.parse(body)) });
    expect(parsePromptText(incidents.promptText(answer.incident_id)!).plan_devices).toBeUndefined();
  });
});
