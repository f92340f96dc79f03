import { describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { confirmRepository } from '../../src/adapters/store-pg/confirm-repository';
import { createTeamConfirms } from '../../src/adapters/team/confirms';
import { createForgedRows } from '../../src/adapters/team/forged-rows';
import type { TeamCoordinator } from '../../src/adapters/team/coordinator';
import type { ConfirmResult } from '../../src/core/changes/confirmed-apply';
import { silent } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { teamMember } from './team-relays';

const pg = usePostgres();

describe.skipIf(Boolean(noPostgres))('team relay: a confirm recorded by another relay', () => {
  it('is applied once by the owner when its NOTIFY and the heartbeat\'s sweep find it at the same time, and the answer stored is that one', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const id = (await a.relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) })).json().incident_id as string;
    await a.store.flush();
    // The relay's own heartbeat and listener stop: only the test's calls below find the confirm.
    await a.team.stop({ handOver: false });
    // The owner's own team, with both of its ways to hear of a confirm in the test's hands, and its
    // confirms' queries seen by the test (to know when the sweep has found the row).
    const heard: { notified?: (i: string, k: string, kind: 'decision' | 'confirm') => Promise<void>; beat?: () => Promise<void> } = {};
    const real = a.store.pool;
    const reads = { waiting: 0, get: 0 };
    let swept: (() => void) | undefined;
    const pool = {
      query: (text: string, values: unknown[]) => {
        if (text.includes('JOIN incidents')) reads.waiting += 1;
        else if (text.startsWith('SELECT')) reads.get += 1;
        const answer = real.query(text, values);
        // Once the sweep's answer is in and everything it set off synchronously has run.
        if (text.includes('JOIN incidents')) void answer.then(() => setImmediate(() => swept?.()));
        return answer;
      },
    };
    const team = { ...a.team, pool, owns: () => true, onDecision: (h: NonNullable<typeof heard.notified>) => ((heard.notified = h), () => {}), onBeat: (h: NonNullable<typeof heard.beat>) => ((heard.beat = h), () => {}) } as unknown as TeamCoordinator;
    const calls: string[] = [];
    let started: (() => void) | undefined;
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    let finish: (() => void) | undefined;
    const confirms = createTeamConfirms({
      team,
      incidents: a.relay.incidents,
      logger: silent,
      forged: createForgedRows({ incidents: a.relay.incidents, logger: silent }),
      // The device's answer takes a while; a second confirm of a confirmed change is refused, as the device tool server does.
      confirmLocally: async (_i, _c, person) => {
        calls.push(person);
        if (calls.length > 1) return { ok: false, code: 'not_pending', message: 'already confirmed' } satisfies ConfirmResult;
        started?.();
        await new Promise<void>((resolve) => (finish = resolve));
        return { ok: true } as ConfirmResult;
      },
    });
    const repo = confirmRepository(real);
    const confirm = { incident_id: id, change_id: 'chg-1', by_name: 'ana@example.net', requested_at: new Date().toISOString(), received_by: 'relay-b' };
    // Signed as relay B signs it (the incident has no approval request here: no lines).
    expect(await repo.record({ ...confirm, mac: a.team.seal.confirm({ ...confirm, lines_sha256: '' }) })).toBe(true);
    // The NOTIFY's apply is at the device; the sweep finds the same row, still unapplied.
    const notified = heard.notified!(id, 'chg-1', 'confirm');
    await firstStarted;
    const sweepFound = new Promise<void>((resolve) => (swept = resolve));
    const beat = heard.beat!();
    await sweepFound;
    // A sweep that read the row again goes on to apply it itself: let it finish before the first does.
    if (reads.get > 1) await beat;
    finish!();
    await Promise.all([notified, beat]);
    confirms.stop();
    expect(calls).toEqual(['ana@example.net']);
    expect((await repo.get(id, 'chg-1'))?.result).toEqual({ ok: true });
  });
});
