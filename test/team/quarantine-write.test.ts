import { describe, expect, it, onTestFinished } from 'vitest';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { pgQuarantine } from '../../src/adapters/store-pg/quarantine-repository';
import { waitUntil } from '../helpers/opencode';
import { untilIncident } from '../helpers/incident-waits';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { quarantineRelay, REPAIR } from '../helpers/quarantine-relay';
import { silent } from '../helpers/relay';
import { unrollableDevice } from '../helpers/unrollable-device';
import { decideAs } from '../helpers/decide-as';

/**
 * A quarantine the database cannot take (PostgreSQL down) is not only logged: the relay keeps the
 * device quarantined itself (no card, no change), /health names the write still waiting, and the
 * relay writes it as soon as the database is back, so every relay of the team then honours it.
 */
const pg = usePostgres();

describe.skipIf(Boolean(noPostgres))('a quarantine written while PostgreSQL is down', () => {
  it('holds locally, shows on /health as unwritten, and lands in quarantined_devices once the server is back', { timeout: 120_000 }, async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    let release!: () => void;
    const readsWaitFor = new Promise<void>((resolve) => (release = resolve));
    const t = await quarantineRelay({ quarantine: pgQuarantine(pool), device: unrollableDevice({ readsWaitFor }) });
    onTestFinished(() => t.close());

    const first = await t.fire('10.0.0.2');
    expect((await t.ask(first)).json).toMatchObject({ status: 'pending' });
    await decideAs(t.relay, first, 'APPROVED', 'ana@example.net');
    const applied = await t.device.call('config_cli', { incident_id: first, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);

    // The database goes away; then the post-check fails and the rollback with it.
    await pg.server().stop('fast');
    let up = false;
    onTestFinished(async () => {
      if (!up) await pg.server().start();
    });
    release();
    await untilIncident(t.relay, first, (_i, timeline) => timeline.some((e) => e.type === 'device.quarantined'));
    const health = await t.health();
    expect(health.status).toBe('degraded');
    expect(health.reasons?.join('\n')).toMatch(/^R1 is quarantined since .*Not yet written to the store \(.+\): retrying; this relay keeps it quarantined meanwhile\.$/m);

    // Fail closed: another incident on R1 gets no card while the database is still down.
    const second = await t.fire('10.0.0.3');
    expect((await t.ask(second)).json).toMatchObject({ status: 'escalated_quarantined', device: 'R1' });

    await pg.server().start();
    up = true;
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    await waitUntil(async () => (await db.query('SELECT device FROM quarantined_devices')).rows.length === 1, 'the quarantine is written', { timeoutMs: 60_000 });
    expect((await db.query('SELECT device, incident_id FROM quarantined_devices')).rows).toEqual([{ device: 'R1', incident_id: first }]);
    const after = await t.health();
    expect(after.reasons?.join('\n')).toMatch(/^R1 is quarantined since /m);
    expect(after.reasons?.join('\n')).not.toMatch(/Not yet written/);
  });
});
