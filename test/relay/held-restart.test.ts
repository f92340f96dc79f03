import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { fileHeldRequests, type HeldRequests } from '../../src/core/approvals/held-requests';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import type { IncidentStore } from '../../src/core/incidents/store';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { pgHeldRequests } from '../../src/adapters/store-pg/held-repository';
import { createPgStore } from '../../src/adapters/store-pg/pg-store';
import { untilIncident } from '../helpers/incident-waits';
import { waitUntil } from '../helpers/opencode';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { quarantineRelay, REPAIR } from '../helpers/quarantine-relay';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';
import { unrollableDevice } from '../helpers/unrollable-device';
import { decideAs } from '../helpers/decide-as';

/**
 * A request held behind another incident's provisional change outlives a restart of the relay: it
 * is written (the laptop's data folder, the team's database) before the tool answers `held`, and
 * the restarted relay asks it when that change is confirmed or rolled back, the run never asking again.
 */
const pg = usePostgres();
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

/** The same place reopened after a restart: the incidents and the held requests. */
type Place = { store(): IncidentStore | Promise<IncidentStore>; held: HeldRequests };
const places: [string, () => Promise<Place>, string | undefined][] = [
  [
    'the data folder',
    async () => {
      const dir = tempDir('fault-relay-held-');
      const store = () => {
        const { open: live, archive } = createFileBackends(dir);
        return createPersistentStore({ backend: live, archive, timelineDir: join(dir, 'timelines'), retention: 1000, logger: silent });
      };
      return { store, held: fileHeldRequests(dir) };
    },
    undefined,
  ],
  [
    'postgresql',
    async () => {
      const pool = createPool({ url: await pg.freshDatabase(), logger: silent });
      onTestFinished(() => pool.end());
      await migrate(pool, silent);
      return { store: () => createPgStore({ pool, relayId: 'relay-1', retention: 1000, logger: silent }), held: pgHeldRequests(pool) };
    },
    noPostgres,
  ],
];

describe.each(places)('a held request across a relay restart (%s)', (_name, fresh, skip) => {
  /** A relay on `place` with the first incident's change pending on R1 and a second incident's request held behind it; then restarted. */
  async function heldThenRestarted(device: ReturnType<typeof unrollableDevice>) {
    const place = await fresh();
    const before = await quarantineRelay({ device, store: await place.store(), held: place.held });
    const first = await before.fire('10.0.0.2');
    expect((await before.ask(first)).json).toMatchObject({ status: 'pending' });
    await decideAs(before.relay, first, 'APPROVED', 'ana@example.net');
    const applied = await before.device.call('config_cli', { incident_id: first, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);
    const change = before.relay.incidents.get(first)!.change!;
    const second = await before.fire('10.0.0.3');
    expect((await before.ask(second)).json).toMatchObject({ status: 'held', waiting_for: { incident_id: first, change_id: change.change_id } });
    // Kept before the tool answered.
    expect(await place.held.load()).toEqual([expect.objectContaining({ incident_id: second, waiting_for: { incident_id: first, change_id: change.change_id } })]);
    await before.close();
    return { place, first, second, change };
  }

  it.skipIf(Boolean(skip))('is asked when the first change is confirmed after the restart', async () => {
    // Reads never answer: the post-check neither confirms nor rolls back; a person confirms.
    const device = unrollableDevice({ readsWaitFor: new Promise(() => undefined) });
    const { place, first, second, change } = await heldThenRestarted(device);
    const after = await quarantineRelay({ device, store: await place.store(), held: place.held });
    open.push(after);
    await waitUntil(async () => after.relay.approvals.heldFor(second) !== undefined, 'the held request is read back');
    expect(after.relay.approvals.heldFor(second)).toEqual({ incident_id: first, change_id: change.change_id });
    expect(after.relay.incidents.get(second)).toMatchObject({ state: 'running', approval_request: null });

    expect(await after.relay.confirm!({ incident_id: first, change_id: change.change_id, who: { id: 'ana@example.net', authenticated_by: 'personal_token' } })).toMatchObject({ ok: true });
    const asked = await untilIncident(after.relay, second, (i) => i.state === 'awaiting_approval');
    expect(asked.approval_request).toMatchObject({ status: 'pending', device: 'R1', commands: REPAIR });
    expect(after.relay.incidents.timeline(second).map((e) => e.type)).toEqual(expect.arrayContaining(['approval.held', 'approval.unheld', 'approval.requested']));
    await waitUntil(async () => (await place.held.load()).length === 0, 'the asked request leaves the store');
  });

  it.skipIf(Boolean(skip))('keeps a plan held for a quarantined device whole: every device\'s lines and what it waits for', async () => {
    const { held } = await fresh();
    const plan = [
      { device: 'R1', commands: REPAIR, rollback: [], preview: null },
      { device: 'R2', commands: ['router bgp 65002', 'no neighbor 10.0.0.1 shutdown'], rollback: [], preview: null },
    ];
    const waiting = { device: 'R2', since: '2026-11-28T09:00:00.000Z', reason: 'change chg-0 of INC-0: ROLLBACK FAILED' };
    const kept = { incident_id: 'INC-P', input: { incident_id: 'INC-P', summary: 'both ends', device: 'R1', commands: ['! device R1', ...REPAIR], plan }, waiting_for: waiting, held_at: '2026-11-28T10:00:00.000Z' };
    await held.put(kept);
    expect(await held.load()).toEqual([kept]);
  });

  it.skipIf(Boolean(skip))('is asked at start when the first change was rolled back while the relay was down', async () => {
    const device = unrollableDevice({ readsWaitFor: new Promise(() => undefined), rollbackWorks: () => true });
    const { place, second, change } = await heldThenRestarted(device);
    // The device tool server rolled it back at its deadline meanwhile.
    await device.rollbackChange('R1', change.change_id, 'deadline');
    const after = await quarantineRelay({ device, store: await place.store(), held: place.held });
    open.push(after);
    const asked = await untilIncident(after.relay, second, (i) => i.state === 'awaiting_approval');
    expect(asked.approval_request).toMatchObject({ status: 'pending', device: 'R1' });
    expect(after.relay.approvals.heldFor(second)).toBeUndefined();
  });
});
