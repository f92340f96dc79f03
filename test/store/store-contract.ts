import { describe, expect, it } from 'vitest';
import { NO_APPLICATION, type Incident } from '../../src/core/incidents/model';
import type { IncidentStore } from '../../src/core/incidents/store';

export const incident = (n: number, state: Incident['state'] = 'queued', extra: Partial<Incident> = {}): Incident => {
  const at = new Date(Date.UTC(2026, 10, 21, 10, 0, n)).toISOString();
  return {
    incident_id: `INC-${n}`, session_id: null, alert_def_id: 'AD000002', device_hostname: `R${n}`, mode: 'strict', state,
    created_at: at, updated_at: at, last_seen: at, occurrences: 1, warnings: [], alert_vars: { neighbor_ip: '10.1.1.2' }, kind: 'relay', field_sources: null, severity: null, progress: null, approval_request: null, approval: null, application: NO_APPLICATION, change: null, outcome: null, prompt_text: `prompt ${n}`,
    dedup_key: `k${n}`, delivery: { attempts: 0, next_attempt_at: null, last_error: null }, ...extra,
  };
};

/** A backend under test: `open` starts a store on the same data (a restart when called again). */
export interface StoreUnderTest {
  open(opts?: { retention?: number }): Promise<IncidentStore>;
}

/**
 * One behaviour for every backend: the laptop's files and the team relay's PostgreSQL run these
 * same tests (test/store/*.test.ts), so the relay above cannot tell them apart.
 */
export function describeStoreContract(name: string, setup: () => Promise<StoreUnderTest>, opts: { skip?: string } = {}) {
  describe.skipIf(Boolean(opts.skip))(`incident store contract: ${name}`, () => {
    it('keeps incidents and timelines across a restart', async () => {
      const t = await setup();
      const a = await t.open();
      a.put(incident(1));
      a.appendTimeline('INC-1', { at: 'x', type: 'alert.received', message: 'hello' });
      a.appendTimeline('INC-1', { at: 'y', type: 'prompt.sent', message: 'sent', session_id: 'ses_1' });
      a.put(incident(1, 'running', { session_id: 'ses_1' }));
      await a.flush();
      await a.close();
      const b = await t.open();
      expect(b.get('INC-1')).toEqual(incident(1, 'running', { session_id: 'ses_1' }));
      expect(b.timeline('INC-1')).toEqual([
        { at: 'x', type: 'alert.received', message: 'hello' },
        { at: 'y', type: 'prompt.sent', message: 'sent', session_id: 'ses_1' },
      ]);
      expect(await b.loadTimeline('INC-1')).toEqual(b.timeline('INC-1'));
      await b.close();
    });

    it('lists newest first and answers undefined for an unknown incident', async () => {
      const s = await (await setup()).open();
      for (const n of [2, 1, 3]) s.put(incident(n));
      expect(s.list().map((i) => i.incident_id)).toEqual(['INC-3', 'INC-2', 'INC-1']);
      expect(s.get('INC-9')).toBeUndefined();
      expect(s.timeline('INC-9')).toEqual([]);
      expect(await s.loadTimeline('INC-9')).toEqual([]);
      await s.close();
    });

    it('keeps only the newest finished incidents (retention), never an open one, and forgets the timelines it evicts', async () => {
      const t = await setup();
      const s = await t.open({ retention: 2 });
      s.put(incident(0, 'queued'));
      for (let n = 1; n <= 4; n++) {
        s.appendTimeline(`INC-${n}`, { at: 'x', type: 't', message: `m${n}` });
        s.put(incident(n, 'resolved'));
      }
      expect(s.list().map((i) => i.incident_id)).toEqual(['INC-4', 'INC-3', 'INC-0']);
      await s.close();
      const again = await t.open({ retention: 2 });
      expect(again.list().map((i) => i.incident_id)).toEqual(['INC-4', 'INC-3', 'INC-0']);
      expect(await again.loadTimeline('INC-1')).toEqual([]);
      expect((await again.loadTimeline('INC-4')).map((e) => e.message)).toEqual(['m4']);
      await again.close();
    });

    it('keeps a lazy write (a duplicate folded in) once closed', async () => {
      const t = await setup();
      const a = await t.open();
      a.put(incident(1));
      a.put(incident(1, 'queued', { occurrences: 7, last_seen: '2026-11-21T10:05:00.000Z' }), { lazy: true });
      await a.close();
      const b = await t.open();
      expect(b.get('INC-1')).toMatchObject({ occurrences: 7, last_seen: '2026-11-21T10:05:00.000Z' });
      await b.close();
    });

    it('reads the whole timeline of a finished incident after a restart', async () => {
      const t = await setup();
      const a = await t.open();
      a.put(incident(1));
      for (let n = 0; n < 50; n++) a.appendTimeline('INC-1', { at: String(n), type: 'tool.completed', message: `step ${n}` });
      a.put(incident(1, 'escalated'));
      await a.close();
      const b = await t.open();
      expect((await b.loadTimeline('INC-1')).map((e) => e.message)).toEqual(Array.from({ length: 50 }, (_, n) => `step ${n}`));
      expect(b.health()).toMatchObject({ ok: true, pending_writes: 0 });
      await b.close();
    });
  });
}
