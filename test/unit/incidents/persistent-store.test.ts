import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileBackend, createFileBackends } from '../../../src/core/incidents/file-backend';
import { NO_APPLICATION, type Incident } from '../../../src/core/incidents/model';
import { createMemoryBackend, createPersistentStore } from '../../../src/core/incidents/persistent-store';
import type { IncidentStore } from '../../../src/core/incidents/store';
import { silent } from '../../helpers/relay';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'relay-store-'));
  dirs.push(d);
  return d;
};
// A store writes its index a second after a change; closed first, it cannot recreate a removed folder.
const stores: IncidentStore[] = [];
const opened = (s: IncidentStore) => (stores.push(s), s);
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const incident = (n: number, state: Incident['state'] = 'queued'): Incident => {
  const at = new Date(Date.UTC(2026, 10, 21, 10, 0, n)).toISOString();
  return {
    incident_id: `INC-${n}`, session_id: null, alert_def_id: 'AD000002', device_hostname: `R${n}`, mode: 'strict', state,
    created_at: at, updated_at: at, last_seen: at, occurrences: 1, warnings: [], alert_vars: {}, kind: 'relay', field_sources: null, severity: null, progress: null, approval_request: null, approval: null, application: NO_APPLICATION, change: null, outcome: null, prompt_text: null,
    dedup_key: `k${n}`, delivery: { attempts: 0, next_attempt_at: null, last_error: null },
  };
};

const open = (dir: string, retention = 1000) =>
  opened(createPersistentStore({ backend: createFileBackend(dir, 'incidents'), timelineDir: join(dir, 'timelines'), retention, logger: silent }));

describe('persistent incident store', () => {
  it('keeps incidents and timelines across a reopen (a restart)', () => {
    const dir = tmp();
    const a = open(dir);
    a.put(incident(1));
    a.appendTimeline('INC-1', { at: 'x', type: 'alert.received', message: 'hello' });
    a.appendTimeline('INC-1', { at: 'y', type: 'prompt.sent', message: 'sent' });
    const b = open(dir);
    expect(b.get('INC-1')?.device_hostname).toBe('R1');
    expect(b.timeline('INC-1').map((e) => e.type)).toEqual(['alert.received', 'prompt.sent']);
  });

  it('reads a timeline whose last line was torn by a crash', () => {
    const dir = tmp();
    const a = open(dir);
    a.put(incident(1));
    a.appendTimeline('INC-1', { at: 'x', type: 'alert.received', message: 'hello' });
    appendFileSync(join(dir, 'timelines', 'INC-1.jsonl'), '{"at":"y","type":"pro');
    expect(open(dir).timeline('INC-1')).toHaveLength(1);
  });

  it('keeps only the newest terminal incidents, never an open one, and removes evicted timelines', () => {
    const dir = tmp();
    const s = open(dir, 2);
    s.put(incident(0, 'queued'));
    for (let n = 1; n <= 4; n++) {
      s.put(incident(n, 'resolved'));
      s.appendTimeline(`INC-${n}`, { at: 'x', type: 't', message: 'm' });
    }
    expect(s.list().map((i) => i.incident_id)).toEqual(['INC-4', 'INC-3', 'INC-0']);
    expect(readdirSync(join(dir, 'timelines')).filter((f) => f.endsWith('.jsonl')).sort()).toEqual(['INC-3.jsonl', 'INC-4.jsonl']);
    expect(open(dir, 2).list()).toHaveLength(3);
  });

  it('keeps finished incidents in the archive: a state change of an open one rewrites only the open index', () => {
    const open = createMemoryBackend();
    const archive = createMemoryBackend();
    const writes = { open: 0, archive: 0 };
    const counting = (b: ReturnType<typeof createMemoryBackend>, k: 'open' | 'archive') => ({ get: b.get, set: (key: string, v: unknown) => (writes[k]++, b.set(key, v)) });
    const s = createPersistentStore({ backend: counting(open, 'open'), archive: counting(archive, 'archive'), retention: 1000, logger: silent });
    for (let n = 1; n <= 1000; n++) s.put(incident(n, 'resolved'));
    s.put(incident(0, 'queued'));
    writes.open = 0;
    writes.archive = 0;
    s.put({ ...incident(0, 'running'), session_id: 'ses_x' });
    expect(writes).toEqual({ open: 1, archive: 0 });
    expect((open.get('incidents') as unknown[]).length).toBe(1);
    s.put({ ...incident(0, 'resolved') });
    expect(writes).toEqual({ open: 2, archive: 1 });
    expect((open.get('incidents') as unknown[]).length).toBe(0);
    expect((archive.get('incidents') as unknown[]).length).toBe(1000); // retention: the oldest finished one went
  });

  it('reopens from the two conf files with every incident where it was', () => {
    const dir = tmp();
    const open2 = (d: string) => {
      const b = createFileBackends(d);
      return opened(createPersistentStore({ backend: b.open, archive: b.archive, retention: 10, logger: silent }));
    };
    const a = open2(dir);
    a.put(incident(1, 'running'));
    a.put(incident(2, 'escalated'));
    const b = open2(dir);
    expect(b.list().map((i) => [i.incident_id, i.state])).toEqual([['INC-2', 'escalated'], ['INC-1', 'running']]);
  });
});
