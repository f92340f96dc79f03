import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';
import { describeStoreContract, incident } from './store-contract';

describeStoreContract('files (the laptop relay)', async () => {
  const dir = tempDir('fault-relay-store-');
  return {
    open: async (opts) => {
      const b = createFileBackends(dir);
      return createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: opts?.retention ?? 1000, logger: silent });
    },
  };
});

describe('files store: the repeats log', () => {
  const open = (dir: string) => {
    const b = createFileBackends(dir);
    // The log is far from long enough to be compacted in this test: only the log can keep the repeats.
    return createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: 100, logger: silent });
  };

  it('keeps repeats written lazily when the relay stops without closing the store (kill -9), and empties the log once the index has them', async () => {
    const dir = tempDir('fault-relay-repeats-');
    const crashed = open(dir);
    crashed.put(incident(1));
    for (let n = 2; n <= 5; n++) crashed.put({ ...incident(1), occurrences: n, last_seen: `2026-11-21T10:0${n}:00.000Z` }, { lazy: true });
    // What the intake awaits before a repeat's 202: the turn's repeats written to the log in one write.
    await crashed.flush();
    expect(existsSync(join(dir, 'timelines', 'repeats.log'))).toBe(true);
    // Not closed: as after kill -9, the index on disk still says 1.
    const restarted = open(dir);
    expect(restarted.get('INC-1')).toMatchObject({ occurrences: 5, last_seen: '2026-11-21T10:05:00.000Z' });
    expect(existsSync(join(dir, 'timelines', 'repeats.log'))).toBe(false);
    await restarted.close();
    expect(open(dir).get('INC-1')?.occurrences).toBe(5);
  });

  it('keeps a new incident and its delivery (whole records, not only counts) through kill -9, in the order written, with repeats between', async () => {
    const dir = tempDir('fault-relay-records-');
    const crashed = open(dir);
    crashed.put(incident(1));
    crashed.put({ ...incident(1), occurrences: 2, last_seen: '2026-11-21T10:02:00.000Z' }, { lazy: true });
    crashed.put({ ...incident(1), occurrences: 2, last_seen: '2026-11-21T10:02:00.000Z', state: 'running', session_id: 'ses_1', updated_at: '2026-11-21T10:03:00.000Z' });
    crashed.put(incident(2));
    // Not closed, and the log never compacted: as after kill -9 right after the 202.
    const restarted = open(dir);
    expect(restarted.get('INC-1')).toMatchObject({ state: 'running', session_id: 'ses_1', occurrences: 2, last_seen: '2026-11-21T10:02:00.000Z' });
    expect(restarted.get('INC-2')).toMatchObject({ state: 'queued', occurrences: 1 });
    expect(existsSync(join(dir, 'timelines', 'repeats.log'))).toBe(false);
    await restarted.close();
    expect(open(dir).list().map((i) => [i.incident_id, i.state])).toEqual([['INC-2', 'queued'], ['INC-1', 'running']]);
  });
});

describe('files store: compaction', () => {
  it('folds the log into the files in the background once it is as long as they are; a kill at any point keeps every write', async () => {
    const dir = tempDir('fault-relay-compact-');
    const open = () => {
      const b = createFileBackends(dir);
      return createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: 1000, logger: silent, compactAtBytes: 4_096 });
    };
    const log = join(dir, 'timelines', 'repeats.log');
    const a = open();
    // Each incident written three times or four: the log outgrows the files it would be folded into.
    for (let n = 1; n <= 300; n++) {
      a.put(incident(n));
      a.put(incident(n, 'running', { session_id: `ses_${n}` }));
      a.put(incident(n, 'awaiting_approval', { session_id: `ses_${n}` }));
      if (n % 3 === 0) a.put(incident(n, 'resolved'));
    }
    // The files took the incidents without a close, and the log was cut back: written less than everything.
    await vi.waitFor(() => {
      expect(existsSync(`${log}.old`)).toBe(false);
      expect((JSON.parse(readFileSync(join(dir, 'incidents.json'), 'utf8')) as { incidents: unknown[] }).incidents.length).toBeGreaterThan(0);
    });
    expect(statSync(log).size).toBeLessThan(1000 * 700);
    // As after kill -9: not closed. Everything is there, each where it ended.
    const b = open();
    expect(b.list()).toHaveLength(300);
    expect(b.list().filter((i) => i.state === 'resolved')).toHaveLength(100);
    await b.close();
    await a.close();
  });

  it('a log set aside by a compaction the kill interrupted is replayed first, then the new one', () => {
    const dir = tempDir('fault-relay-compact-old-');
    const b = createFileBackends(dir);
    const log = join(dir, 'timelines', 'repeats.log');
    mkdirSync(join(dir, 'timelines'));
    writeFileSync(`${log}.old`, `${JSON.stringify({ f: incident(1) })}\n${JSON.stringify({ f: { ...incident(1), state: 'running', updated_at: '2026-11-21T11:00:00.000Z' } })}\n`);
    writeFileSync(log, `${JSON.stringify({ f: { ...incident(1), state: 'resolved', updated_at: '2026-11-21T12:00:00.000Z' } })}\n${JSON.stringify({ f: incident(2) })}\n`);
    const store = createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: 1000, logger: silent });
    expect(store.list().map((i) => [i.incident_id, i.state])).toEqual([['INC-2', 'queued'], ['INC-1', 'resolved']]);
    expect(existsSync(log) || existsSync(`${log}.old`)).toBe(false);
  });
});
